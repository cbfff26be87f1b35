// FusedEpilogue (optimize stage): a main op with one output (Conv, MatMul) followed by
// element-wise steps applied in place on its output: activations (Unary, Clip) and binary ops
// with one more operand (a bias, a per-channel scale, a residual). What kernels with a fused
// epilogue compute; this reference evaluates the main op, then each step over the same buffer.
// Node inputs: the main op's inputs, then each step's extra operands in step order.
#pragma once

#include "core/op.h"

namespace kiln::ops {

struct EpilogueStep {
  OpPtr op;             // element-wise, output of the type and shape of the value it reads
  size_t position = 0;  // where the running value goes among the step's inputs
  size_t extras = 0;    // number of extra operands (node inputs) the step reads
};

class FusedEpilogue : public Op {
 public:
  FusedEpilogue(OpPtr main, size_t main_inputs, std::vector<EpilogueStep> steps);
  const OpPtr& main() const { return main_; }
  size_t main_inputs() const { return main_inputs_; }
  const std::vector<EpilogueStep>& steps() const { return steps_; }
  // The same fusion with one more step.
  std::shared_ptr<FusedEpilogue> with_step(EpilogueStep step) const;

  // "Conv+Clip", "MatMul+Add+Relu".
  std::string name() const override;
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;
  // The main op's codegen, with the same steps.
  OpPtr codegen(const FactRefs& inputs) const override;
  // The main op's flag: a reference Conv with its epilogue runs the reference Conv.
  bool is_reference_impl() const override { return main_->is_reference_impl(); }

 private:
  // Inputs of step i: the running value at its position, its extras from `inputs`.
  template <typename T>
  std::vector<const T*> step_inputs(size_t step, const T* value,
                                    const std::vector<const T*>& inputs) const;
  OpPtr main_;
  size_t main_inputs_;
  std::vector<EpilogueStep> steps_;
};

}  // namespace kiln::ops
