// MatMulDynamic: an f32 MatMul whose operands are both computed at run time (attention scores,
// attention-weighted values), specialised by MatMul::codegen when both have rank >= 2 and the
// same batch dims: each batch's product runs through the packed matrix multiply, packing A and B
// panels on the fly, MatMul's bias (if any) in the epilogue. Other shapes (broadcast batches) run
// the reference MatMul.
#pragma once

#include <memory>

#include "kernels/mmm/mmm.h"
#include "ops/nn/matmul.h"

namespace kiln::ops {

class MatMulDynamic : public Op {
 public:
  explicit MatMulDynamic(std::shared_ptr<const MatMul> reference);
  std::string name() const override { return "MatMulDynamic"; }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override {
    return reference_->output_facts(inputs);
  }
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override { return reference_->cost(inputs); }

 private:
  std::shared_ptr<const MatMul> reference_;
  const kernels::MicroKernel* kernel_;
};

}  // namespace kiln::ops
