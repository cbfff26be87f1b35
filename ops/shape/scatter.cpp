#include "ops/shape/scatter.h"

#include <algorithm>

#include "ops/shape/common.h"
#include "ops/shape/gather.h"

namespace kiln::ops {

ScatterReduction parse_scatter_reduction(const std::string& text) {
  if (text == "none") return ScatterReduction::None;
  if (text == "add") return ScatterReduction::Add;
  if (text == "mul") return ScatterReduction::Mul;
  if (text == "max") return ScatterReduction::Max;
  if (text == "min") return ScatterReduction::Min;
  fail("unknown scatter reduction '{}'", text);
}

std::string to_string(ScatterReduction r) {
  switch (r) {
    case ScatterReduction::None:
      return "none";
    case ScatterReduction::Add:
      return "add";
    case ScatterReduction::Mul:
      return "mul";
    case ScatterReduction::Max:
      return "max";
    case ScatterReduction::Min:
      return "min";
  }
  return "?";
}

namespace {

template <typename T>
void combine(T& dst, const T& src, ScatterReduction r) {
  if (r == ScatterReduction::None) {
    dst = src;
    return;
  }
  if constexpr (std::is_same_v<T, std::string>) {
    fail("scatter reduction {} does not apply to strings", to_string(r));
  } else if constexpr (std::is_same_v<T, bool>) {
    // Booleans combine as logic: add/max are "or", mul/min are "and".
    dst = (r == ScatterReduction::Add || r == ScatterReduction::Max) ? (dst || src) : (dst && src);
  } else if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>) {
    float a = dst, b = src;
    T v = dst;
    combine(a, b, r);
    v = T(a);
    dst = v;
  } else {
    switch (r) {
      case ScatterReduction::Add:
        dst = static_cast<T>(dst + src);
        break;
      case ScatterReduction::Mul:
        dst = static_cast<T>(dst * src);
        break;
      case ScatterReduction::Max:
        dst = std::max(dst, src);
        break;
      case ScatterReduction::Min:
        dst = std::min(dst, src);
        break;
      default:
        break;
    }
  }
}

void copy_into(Tensor& out, const Tensor& data) {
  dispatch_any(data.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* s = data.data<T>();
    T* d = out.data<T>();
    for (int64_t i = 0; i < data.numel(); i++) d[i] = s[i];
  });
}

}  // namespace

Attributes ScatterElements::attributes() const {
  return {{"axis", std::to_string(axis_)}, {"reduction", to_string(reduction_)}};
}

std::vector<Fact> ScatterElements::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 3, 3);
  const Fact& data = required(inputs, 0, name());
  const Fact& indices = required(inputs, 1, name());
  const Fact& updates = required(inputs, 2, name());
  KILN_ENSURE(data.rank() >= 1 && indices.rank() == data.rank(),
              "ScatterElements: data [{}] and indices [{}] must have the same rank >= 1",
              dims_to_string(data.shape), dims_to_string(indices.shape));
  KILN_ENSURE(is_integer(indices.dt), "ScatterElements: indices must be integers");
  KILN_ENSURE(updates.dt == data.dt, "ScatterElements: updates are {}, data is {}",
              name_of(updates.dt), name_of(data.dt));
  KILN_ENSURE(updates.rank() == indices.rank(),
              "ScatterElements: updates [{}] and indices [{}] must have the same shape",
              dims_to_string(updates.shape), dims_to_string(indices.shape));
  normalize_axis(axis_, data.rank(), name());
  return {Fact(data.dt, data.shape)};
}

void ScatterElements::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& data = required(inputs, 0, name());
  const Tensor& indices = required(inputs, 1, name());
  const Tensor& updates = required(inputs, 2, name());
  KILN_ENSURE(indices.rank() == data.rank() && updates.shape() == indices.shape() &&
                  updates.dtype() == data.dtype(),
              "ScatterElements: data [{}], indices [{}] and updates [{}] do not match",
              shape_to_string(data.shape()), shape_to_string(indices.shape()),
              shape_to_string(updates.shape()));
  size_t axis = normalize_axis(axis_, data.rank(), name());
  const Shape& ishape = indices.shape();
  for (size_t d = 0; d < data.rank(); d++)
    KILN_ENSURE(d == axis || ishape[d] <= data.dim(d),
                "ScatterElements: indices [{}] larger than data [{}] on axis {}",
                shape_to_string(ishape), shape_to_string(data.shape()), d);
  auto idx = index_values(indices, name());
  auto strides = contiguous_strides(data.shape());
  Tensor& out = ctx.output(0, data.dtype(), data.shape());
  copy_into(out, data);
  dispatch_any(data.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* up = updates.data<T>();
    T* dst = out.data<T>();
    std::vector<int64_t> pos(ishape.size(), 0);
    for (size_t i = 0; i < idx.size(); i++) {
      int64_t off = 0;
      for (size_t d = 0; d < pos.size(); d++) {
        int64_t p = d == axis ? checked_index(idx[i], data.dim(d), "ScatterElements") : pos[d];
        off += p * strides[d];
      }
      combine(dst[off], up[i], reduction_);
      for (size_t d = pos.size(); d-- > 0;) {
        if (++pos[d] < ishape[d]) break;
        pos[d] = 0;
      }
    }
  });
}

std::vector<Fact> ScatterND::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 3, 3);
  const Fact& data = required(inputs, 0, name());
  const Fact& indices = required(inputs, 1, name());
  const Fact& updates = required(inputs, 2, name());
  KILN_ENSURE(is_integer(indices.dt) && indices.rank() >= 1,
              "ScatterND: indices must be integers of rank >= 1");
  KILN_ENSURE(updates.dt == data.dt, "ScatterND: updates are {}, data is {}", name_of(updates.dt),
              name_of(data.dt));
  if (auto k = indices.shape.back().as_int()) {
    KILN_ENSURE(*k <= static_cast<int64_t>(data.rank()),
                "ScatterND: index tuples of length {} for data of rank {}", *k, data.rank());
    size_t expect = indices.rank() - 1 + data.rank() - static_cast<size_t>(*k);
    KILN_ENSURE(updates.rank() == expect, "ScatterND: updates have rank {}, expected {}",
                updates.rank(), expect);
  }
  return {Fact(data.dt, data.shape)};
}

void ScatterND::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& data = required(inputs, 0, name());
  const Tensor& indices = required(inputs, 1, name());
  const Tensor& updates = required(inputs, 2, name());
  KILN_ENSURE(indices.rank() >= 1 && updates.dtype() == data.dtype(), "ScatterND: bad inputs");
  int64_t k = indices.shape().back();
  KILN_ENSURE(k <= static_cast<int64_t>(data.rank()),
              "ScatterND: index tuples of length {} for data of rank {}", k, data.rank());
  Shape expect(indices.shape().begin(), indices.shape().end() - 1);
  expect.insert(expect.end(), data.shape().begin() + k, data.shape().end());
  KILN_ENSURE(updates.shape() == expect, "ScatterND: updates have shape [{}], expected [{}]",
              shape_to_string(updates.shape()), shape_to_string(expect));
  auto idx = index_values(indices, name());
  auto strides = contiguous_strides(data.shape());
  int64_t slice = 1;
  for (size_t d = static_cast<size_t>(k); d < data.rank(); d++) slice *= data.dim(d);
  int64_t tuples = k == 0 ? 0 : static_cast<int64_t>(idx.size()) / k;
  if (k == 0) tuples = shape_numel(Shape(indices.shape().begin(), indices.shape().end() - 1));
  Tensor& out = ctx.output(0, data.dtype(), data.shape());
  copy_into(out, data);
  dispatch_any(data.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* up = updates.data<T>();
    T* dst = out.data<T>();
    for (int64_t t = 0; t < tuples; t++) {
      int64_t off = 0;
      for (int64_t j = 0; j < k; j++) {
        size_t d = static_cast<size_t>(j);
        off += checked_index(idx[static_cast<size_t>(t * k + j)], data.dim(d), "ScatterND") *
               strides[d];
      }
      for (int64_t e = 0; e < slice; e++) combine(dst[off + e], up[t * slice + e], reduction_);
    }
  });
}

}  // namespace kiln::ops
