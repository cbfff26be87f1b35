#include "ops/shape/compress.h"

namespace kiln::ops {

Attributes Compress::attributes() const {
  if (!axis_) return {};
  return {{"axis", std::to_string(*axis_)}};
}

std::vector<Fact> Compress::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 2);
  const Fact& in = required(inputs, 0, name());
  const Fact& cond = required(inputs, 1, name());
  KILN_ENSURE(cond.rank() == 1, "Compress: condition must have rank 1, got {}", cond.rank());
  Dim len = Dim::fresh();
  if (cond.value) {
    int64_t n = 0;
    for (int64_t i = 0; i < cond.value->numel(); i++) n += cond.value->value_as_i64(i) != 0;
    len = n;
  }
  if (!axis_) return {Fact(in.dt, std::vector<Dim>{len})};
  size_t axis = normalize_axis(*axis_, in.rank(), name());
  Fact out(in.dt, in.shape);
  out.shape[axis] = len;
  return {out};
}

void Compress::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& in = required(inputs, 0, name());
  const Tensor& cond = required(inputs, 1, name());
  KILN_ENSURE(cond.rank() == 1, "Compress: condition must have rank 1, got {}", cond.rank());
  int64_t outer = 1, inner = 1, dim = in.numel();
  Shape shape{0};
  if (axis_) {
    size_t axis = normalize_axis(*axis_, in.rank(), name());
    dim = in.dim(axis);
    for (size_t d = 0; d < axis; d++) outer *= in.dim(d);
    for (size_t d = axis + 1; d < in.rank(); d++) inner *= in.dim(d);
    shape = in.shape();
  }
  KILN_ENSURE(cond.numel() <= dim, "Compress: condition has {} elements for an axis of {}",
              cond.numel(), dim);
  std::vector<int64_t> keep;
  for (int64_t i = 0; i < cond.numel(); i++)
    if (cond.value_as_i64(i) != 0) keep.push_back(i);
  int64_t n = static_cast<int64_t>(keep.size());
  if (axis_) {
    shape[normalize_axis(*axis_, in.rank(), name())] = n;
  } else {
    shape[0] = n;
  }
  Tensor& out = ctx.output(0, in.dtype(), shape);
  dispatch_any(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = in.data<T>();
    T* dst = out.data<T>();
    for (int64_t o = 0; o < outer; o++)
      for (int64_t j = 0; j < n; j++)
        for (int64_t k = 0; k < inner; k++)
          dst[(o * n + j) * inner + k] = src[(o * dim + keep[static_cast<size_t>(j)]) * inner + k];
  });
}

}  // namespace kiln::ops
