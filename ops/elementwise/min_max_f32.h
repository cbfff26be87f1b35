// MinMaxF32 (optimize stage): the f32 Max or Min of two inputs (Variadic::codegen), through the
// vectorized kernels of kernels/elementwise/vec_math with the broadcasts BinaryF32 takes (equal
// shapes, a scalar, a trailing block, a leading block); other broadcasts run the reference op.
// NaN wins, as in the reference (numpy's maximum / minimum). Large outputs split across threads.
#pragma once

#include <memory>

#include "ops/elementwise/variadic.h"

namespace kiln::ops {

class MinMaxF32 : public Op, public OutputStepSource {
 public:
  explicit MinMaxF32(std::shared_ptr<const Variadic> reference);
  std::string name() const override { return reference_->name() + "F32"; }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override {
    return reference_->output_facts(inputs);
  }
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override { return reference_->cost(inputs); }
  std::optional<OutputStep> output_step(const FactRefs& inputs, size_t value) const override {
    return reference_->output_step(inputs, value);
  }

 private:
  std::shared_ptr<const Variadic> reference_;
};

}  // namespace kiln::ops
