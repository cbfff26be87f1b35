#include "ops/shape/concat.h"

#include <cstring>

#include "base/threading.h"
#include "ops/shape/common.h"

namespace kiln::ops {

std::vector<Fact> Concat::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, -1);
  const Fact& first = required(inputs, 0, name());
  KILN_ENSURE(first.rank() >= 1, "Concat: inputs must have rank >= 1");
  size_t axis = normalize_axis(axis_, first.rank(), name());
  std::vector<Dim> shape = first.shape;
  shape[axis] = 0;
  bool all_dims = true;
  std::vector<Dim> dims_value;
  for (size_t i = 0; i < inputs.size(); i++) {
    const Fact& f = required(inputs, i, name());
    KILN_ENSURE(f.dt == first.dt, "Concat: input {} is {}, input 0 is {}", i, name_of(f.dt),
                name_of(first.dt));
    KILN_ENSURE(f.rank() == first.rank(), "Concat: input {} has rank {}, input 0 has rank {}", i,
                f.rank(), first.rank());
    for (size_t d = 0; d < f.rank(); d++) {
      if (d == axis) continue;
      // Symbolic dims may still agree at run time; only integers can be proven different.
      if (f.shape[d].is_int() && first.shape[d].is_int())
        KILN_ENSURE(f.shape[d] == first.shape[d],
                    "Concat: input {} has shape [{}], incompatible with [{}] on axis {}", i,
                    dims_to_string(f.shape), dims_to_string(first.shape), d);
      if (!shape[d].is_int() && f.shape[d].is_int()) shape[d] = f.shape[d];
    }
    shape[axis] += f.shape[axis];
    if (f.dims_value && f.rank() == 1) {
      dims_value.insert(dims_value.end(), f.dims_value->begin(), f.dims_value->end());
    } else {
      all_dims = false;
    }
  }
  if (all_dims && is_integer(first.dt)) return {fact_from_dims_value(first.dt, shape, dims_value)};
  return {Fact(first.dt, shape)};
}

void Concat::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& first = required(inputs, 0, name());
  size_t axis = normalize_axis(axis_, first.rank(), name());
  Shape& shape = ctx.temp_shape(0);
  shape.assign(first.shape().begin(), first.shape().end());
  shape[axis] = 0;
  for (size_t i = 0; i < inputs.size(); i++) {
    const Tensor& t = required(inputs, i, name());
    KILN_ENSURE(t.dtype() == first.dtype() && t.rank() == first.rank(),
                "Concat: input {} [{}] does not match input 0 [{}]", i, shape_to_string(t.shape()),
                shape_to_string(first.shape()));
    for (size_t d = 0; d < t.rank(); d++)
      KILN_ENSURE(d == axis || t.dim(d) == first.dim(d),
                  "Concat: input {} [{}] does not match input 0 [{}] on axis {}", i,
                  shape_to_string(t.shape()), shape_to_string(first.shape()), d);
    KILN_ENSURE(t.dim(axis) <= (int64_t{1} << 62) - shape[axis],
                "Concat: the output's axis {} would be longer than 2^62", axis);
    shape[axis] += t.dim(axis);
  }
  Tensor& out = ctx.output(0, first.dtype(), shape);
  // Nothing to copy (and the products of huge declared dims around an empty one need not fit).
  if (out.numel() == 0) return;
  int64_t outer = 1;
  for (size_t d = 0; d < axis; d++) outer *= shape[d];
  int64_t inner = 1;
  for (size_t d = axis + 1; d < shape.size(); d++) inner *= shape[d];
  if (!is_object(first.dtype())) {
    // Plain data: one memcpy per input and outer index, those copies split across threads when
    // the output is large (DenseNet's concats of a dozen feature maps).
    const size_t elem = size_of(first.dtype());
    const int64_t row = shape[axis] * inner;
    const int64_t n_in = static_cast<int64_t>(inputs.size());
    // Each input's place in an output row (the session's scratch: no allocation per run).
    int64_t* offsets = ctx.scratch<int64_t>(inputs.size());
    for (int64_t i = 0, at = 0; i < n_in; i++) {
      offsets[i] = at;
      at += inputs[static_cast<size_t>(i)]->dim(axis) * inner;
    }
    char* dst = static_cast<char*>(out.raw_data());
    parallel_for_work(n_in * outer, row / n_in + 1, [&](int64_t begin, int64_t end) {
      for (int64_t t = begin; t < end; t++) {
        const int64_t i = t % n_in, o = t / n_in;
        const Tensor& in = *inputs[static_cast<size_t>(i)];
        const int64_t chunk = in.dim(axis) * inner;
        if (chunk == 0) continue;  // (an empty input may have no storage at all)
        std::memcpy(dst + static_cast<size_t>(o * row + offsets[i]) * elem,
                    static_cast<const char*>(in.raw_data()) + static_cast<size_t>(o * chunk) * elem,
                    static_cast<size_t>(chunk) * elem);
      }
    });
    return;
  }
  dispatch_any(first.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* dst = out.data<T>();
    int64_t row = shape[axis] * inner;
    int64_t offset = 0;
    for (const Tensor* t : inputs) {
      const T* src = t->data<T>();
      int64_t chunk = t->dim(axis) * inner;
      for (int64_t o = 0; o < outer; o++)
        for (int64_t k = 0; k < chunk; k++) dst[o * row + offset + k] = src[o * chunk + k];
      offset += chunk;
    }
  });
}

}  // namespace kiln::ops
