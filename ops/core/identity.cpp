#include "ops/core/identity.h"

namespace kiln::ops {

std::vector<Fact> Identity::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  return {required(inputs, 0, name())};
}

void Identity::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  ctx.set_output(0, required(inputs, 0, name()));
}

}  // namespace kiln::ops
