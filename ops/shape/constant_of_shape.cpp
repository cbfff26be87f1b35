#include "ops/shape/constant_of_shape.h"

#include "ops/shape/common.h"

namespace kiln::ops {

ConstantOfShape::ConstantOfShape(Tensor value) : value_(std::move(value)) {
  if (value_.is_null()) value_ = Tensor::scalar<float>(0.0f);
  KILN_ENSURE(value_.numel() == 1, "ConstantOfShape: value must have one element, got {}",
              value_.numel());
}

std::vector<Fact> ConstantOfShape::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& shape = required(inputs, 0, name());
  KILN_ENSURE(shape.rank() == 1, "ConstantOfShape: shape input must have rank 1");
  std::vector<Dim> dims = dims_from_shape_input(shape, name());
  for (const auto& d : dims)
    if (auto v = d.as_int()) KILN_ENSURE(*v >= 0, "ConstantOfShape: negative dim {}", *v);
  return {Fact(value_.dtype(), dims)};
}

void ConstantOfShape::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  Shape shape = index_values(required(inputs, 0, name()), name());
  Tensor& out = ctx.output(0, value_.dtype(), shape);
  dispatch_any(value_.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T v = value_.data<T>()[0];
    T* dst = out.data<T>();
    for (int64_t i = 0; i < out.numel(); i++) dst[i] = v;
  });
}

}  // namespace kiln::ops
