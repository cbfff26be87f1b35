// MatMulPacked: an f32 MatMul or Gemm whose B operand is a constant matrix, specialised at
// optimize time (MatMul::codegen, Gemm::codegen): B packed once into the micro-kernel's column
// panels; Gemm's alpha and beta * C (a constant row vector or scalar) fused into the epilogue as
// column scale and bias. The A operand (input 0) is packed per run; leading dims of a MatMul's A
// fold into its rows. Output steps (ops/core/output_steps.h) run in the product's epilogue; the
// product's plan (kernels::MmmPlan) is made once per row count a session meets. Same inputs as
// the op it replaces, then the operands of its output steps.
#pragma once

#include <memory>
#include <vector>

#include "core/op.h"
#include "kernels/mmm/mmm.h"
#include "ops/core/output_steps.h"

namespace kiln::ops {

class MatMulPacked : public Op, public FusableProducer {
 public:
  struct Config {
    bool trans_a = false;  // Gemm transA: A is [K, M]
    bool gemm = false;     // Gemm (A must be 2-D) rather than MatMul semantics
    float alpha = 1.0f;
    std::vector<float> col_bias;  // n values (beta * C), empty: none
  };
  // `reference`: the op replaced; b: the constant B as [K, N] (trans_b: given as [N, K]).
  MatMulPacked(OpPtr reference, const Tensor& b, bool trans_b, Config config);
  std::string name() const override { return "MatMulPacked"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;

  std::unique_ptr<OpState> make_state(const FactRefs& inputs) const override;
  OpPtr with_output_step(const OutputStep& step, const FactRefs& inputs,
                         const Fact* operand) const override;
  const OutputSteps& output_steps() const { return steps_; }

 private:
  OpPtr reference_;
  Config config_;
  int64_t k_, n_;
  const kernels::MicroKernel* kernel_;
  std::shared_ptr<const kernels::PackedMatrix> packed_b_;
  std::vector<float> col_scale_;  // n copies of alpha when alpha != 1
  OutputSteps steps_;
};

}  // namespace kiln::ops
