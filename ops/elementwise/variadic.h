// Variadic element-wise ops over any number of inputs, broadcast together: Sum, Mean, Min, Max.
#pragma once

#include "core/op.h"
#include "ops/core/output_steps.h"

namespace kiln::ops {

enum class VariadicKind { Sum, Mean, Min, Max };

class Variadic : public Op, public OutputStepSource {
 public:
  explicit Variadic(VariadicKind kind) : kind_(kind) {}
  VariadicKind kind() const { return kind_; }

  std::string name() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }
  // Max / Min of two inputs: a binary step on a producer's output (ops/core/output_steps.h).
  std::optional<OutputStep> output_step(const FactRefs& inputs, size_t value) const override;
  // f32 Max / Min of two inputs: a MinMaxF32 (ops/elementwise/min_max_f32.h).
  OpPtr codegen(const FactRefs& inputs) const override;
  // f32 ones of more inputs are split into two-input ops at declutter (split-variadic); what
  // stays (other types) runs this reference loop.
  bool is_reference_impl() const override { return true; }

 private:
  VariadicKind kind_;
};

}  // namespace kiln::ops
