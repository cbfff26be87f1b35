// MatMulPacked: an f32 MatMul or Gemm whose B operand is a constant matrix, specialised at
// optimize time (MatMul::codegen, Gemm::codegen): B packed once into the micro-kernel's column
// panels; Gemm's alpha and beta * C (a constant row vector or scalar) fused into the epilogue as
// column scale and bias. The A operand (input 0) is packed per run; leading dims of a MatMul's A
// fold into its rows. Same inputs and outputs as the op it replaces.
#pragma once

#include <limits>
#include <memory>
#include <vector>

#include "core/op.h"
#include "kernels/mmm/mmm.h"

namespace kiln::ops {

class MatMulPacked : public Op {
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

  // A copy with a fused clamp (Relu, Clip), combined with any existing one.
  std::shared_ptr<MatMulPacked> with_clamp(float min, float max) const;
  // A copy that adds node input `input` (a tensor of the output's shape: a residual) in the
  // kernel's epilogue, before the clamp (so only on a copy without one).
  std::shared_ptr<MatMulPacked> with_residual(size_t input) const;
  bool clamped() const;
  bool has_residual() const { return residual_input_ >= 0; }

 private:
  OpPtr reference_;
  Config config_;
  int64_t k_, n_;
  const kernels::MicroKernel* kernel_;
  std::shared_ptr<const kernels::PackedMatrix> packed_b_;
  std::vector<float> col_scale_;  // n copies of alpha when alpha != 1
  float min_ = -std::numeric_limits<float>::infinity();
  float max_ = std::numeric_limits<float>::infinity();
  long residual_input_ = -1;  // node input added in the epilogue, -1: none
};

}  // namespace kiln::ops
