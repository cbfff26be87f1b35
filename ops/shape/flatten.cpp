#include "ops/shape/flatten.h"

namespace kiln::ops {

size_t Flatten::axis_for(size_t rank) const {
  int64_t r = static_cast<int64_t>(rank);
  KILN_ENSURE(axis_ >= -r && axis_ <= r, "Flatten: axis {} out of range for rank {}", axis_, rank);
  return static_cast<size_t>(axis_ < 0 ? axis_ + r : axis_);
}

std::vector<Fact> Flatten::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& in = required(inputs, 0, name());
  size_t axis = axis_for(in.rank());
  std::vector<Dim> a(in.shape.begin(), in.shape.begin() + static_cast<long>(axis));
  std::vector<Dim> b(in.shape.begin() + static_cast<long>(axis), in.shape.end());
  return {Fact(in.dt, std::vector<Dim>{dims_product(a), dims_product(b)})};
}

void Flatten::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& in = required(inputs, 0, name());
  size_t axis = axis_for(in.rank());
  int64_t outer = 1;
  for (size_t i = 0; i < axis; i++) outer *= in.dim(i);
  int64_t inner = 1;
  for (size_t i = axis; i < in.rank(); i++) inner *= in.dim(i);
  Shape& shape = ctx.temp_shape(0);
  shape.push_back(outer);
  shape.push_back(inner);
  ctx.set_output_view(0, in, shape);
}

}  // namespace kiln::ops
