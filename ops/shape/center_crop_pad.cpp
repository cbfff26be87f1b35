#include "ops/shape/center_crop_pad.h"

#include <cstring>

#include "base/error.h"

namespace kiln::ops {

Attributes CenterCropPad::attributes() const {
  if (axes_) return {{"axes", ints_to_string(*axes_)}};
  return {};
}

std::vector<size_t> CenterCropPad::axes_for(size_t rank, size_t count) const {
  std::vector<size_t> out;
  if (axes_) {
    for (int64_t a : *axes_) out.push_back(normalize_axis(a, rank, name()));
  } else {
    for (size_t i = 0; i < rank; i++) out.push_back(i);
  }
  KILN_ENSURE(out.size() == count, "CenterCropPad: {} sizes for {} axes", count, out.size());
  return out;
}

std::vector<Fact> CenterCropPad::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 2);
  const Fact& x = required(inputs, 0, name());
  const Fact& shape = required(inputs, 1, name());
  KILN_ENSURE(is_integer(shape.dt) && shape.rank() == 1,
              "CenterCropPad: shape must be a 1-D integer tensor");
  Fact out(x.dt, x.shape);
  if (auto sizes = shape.known_i64_values()) {
    auto axes = axes_for(x.rank(), sizes->size());
    for (size_t i = 0; i < axes.size(); i++) {
      KILN_ENSURE((*sizes)[i] >= 0, "CenterCropPad: negative size {}", (*sizes)[i]);
      out.shape[axes[i]] = (*sizes)[i];
    }
  } else if (shape.dims_value) {
    auto axes = axes_for(x.rank(), shape.dims_value->size());
    for (size_t i = 0; i < axes.size(); i++) out.shape[axes[i]] = (*shape.dims_value)[i];
  } else {
    for (auto& d : out.shape) d = Dim::fresh();
  }
  return {out};
}

void CenterCropPad::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  std::vector<int64_t> sizes = required(inputs, 1, name()).to_i64_vector();
  const size_t rank = x.rank();
  auto axes = axes_for(rank, sizes.size());
  Shape& out_shape = ctx.temp_shape(0);
  out_shape.assign(x.shape().begin(), x.shape().end());
  for (size_t i = 0; i < axes.size(); i++) {
    KILN_ENSURE(sizes[i] >= 0, "CenterCropPad: negative size {}", sizes[i]);
    out_shape[axes[i]] = sizes[i];
  }
  // Per axis: output index o reads input index o + shift (outside [0, in): zero).
  Shape& shift = ctx.temp_shape(1);
  for (size_t d = 0; d < rank; d++) {
    int64_t in = x.dim(d), out = out_shape[d];
    shift.push_back(in >= out ? (in - out) / 2 : -((out - in) / 2));
  }
  Tensor& y = ctx.output(0, x.dtype(), out_shape);
  KILN_ENSURE(!is_object(x.dtype()) || x.dtype() == DatumType::String,
              "CenterCropPad: {} values are not supported", name_of(x.dtype()));
  const int64_t total = y.numel();
  Shape& index = ctx.temp_shape(2);
  index.assign(rank, 0);
  dispatch_any(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xd = x.data<T>();
    T* yd = y.data<T>();
    for (int64_t i = 0; i < total; i++) {
      int64_t src = 0;
      bool inside = true;
      for (size_t d = 0; d < rank; d++) {
        int64_t s = index[d] + shift[d];
        inside = inside && s >= 0 && s < x.dim(d);
        src = src * x.dim(d) + s;
      }
      yd[i] = inside ? xd[src] : T{};
      for (size_t d = rank; d-- > 0;) {
        if (++index[d] < out_shape[d]) break;
        index[d] = 0;
      }
    }
  });
}

}  // namespace kiln::ops
