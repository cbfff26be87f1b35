// Gemm: Y = alpha * op(A) * op(B) + beta * C, op() an optional transpose, C optional and
// broadcast (unidirectionally) to [M, N].
#pragma once

#include "core/op.h"

namespace kiln::ops {

class Gemm : public Op {
 public:
  Gemm(float alpha, float beta, bool trans_a, bool trans_b)
      : alpha_(alpha), beta_(beta), trans_a_(trans_a), trans_b_(trans_b) {}
  float alpha() const { return alpha_; }
  float beta() const { return beta_; }
  bool trans_a() const { return trans_a_; }
  bool trans_b() const { return trans_b_; }
  std::string name() const override { return "Gemm"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;
  // f32 with a constant 2-D B: a MatMulPacked (ops/nn/matmul_packed.h).
  OpPtr codegen(const FactRefs& inputs) const override;
  bool is_reference_impl() const override { return true; }

 private:
  float alpha_, beta_;
  bool trans_a_, trans_b_;
};

}  // namespace kiln::ops
