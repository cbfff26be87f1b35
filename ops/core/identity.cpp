#include "ops/core/identity.h"

namespace kiln::ops {

std::vector<Fact> Identity::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  return {required(inputs, 0, name())};
}

void Identity::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  ctx.set_output_view(0, x, x.shape());  // a view reusing the slot's shape: no allocation
}

}  // namespace kiln::ops
