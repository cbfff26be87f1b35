// Vectorized f32 element-wise ops put in place by codegen (Binary::codegen, Unary::codegen):
// BinaryF32 for Add/Sub/Mul/Div/PRelu (and Pow by the constant 2, as x * x) over equal shapes, a
// scalar operand, a trailing-dims operand (bias) or a leading-dims operand (per-row value, as in
// normalizations); other broadcasts run the reference op. UnaryF32 for the kinds with a
// vectorized kernel (ops/elementwise/unary.h unary_kernel lists them) through
// kernels/elementwise/vec_math (approximations with the errors stated there). Large tensors are
// split across threads.
#pragma once

#include <memory>

#include "core/op.h"
#include "ops/core/output_steps.h"
#include "ops/elementwise/binary.h"
#include "ops/elementwise/unary.h"

namespace kiln::ops {

class BinaryF32 : public Op, public OutputStepSource {
 public:
  // op: kernels::BinaryFn's order (0 add, 1 sub, 2 mul, 3 div, 6 prelu); `square`: Pow(x, 2)
  // computed as x * x (input 1 ignored).
  BinaryF32(std::shared_ptr<const Binary> reference, int op, bool square)
      : reference_(std::move(reference)), op_(op), square_(square) {}
  const std::shared_ptr<const Binary>& reference() const { return reference_; }
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
  std::shared_ptr<const Binary> reference_;
  int op_;
  bool square_;
};

// y = a op b for f32 tensors (op: kernels::BinaryFn's order, add .. min) with the vectorized
// kernels, when one of them has the broadcast's shape and the other is the same shape, a scalar,
// a trailing block (a bias) or a leading block (a value per row); false (nothing written) for
// other broadcasts. Large outputs are split across threads.
bool binary_f32(EvalContext& ctx, int op, const Tensor& a, const Tensor& b);

class UnaryF32 : public Op, public OutputStepSource {
 public:
  explicit UnaryF32(std::shared_ptr<const Unary> reference) : reference_(std::move(reference)) {}
  const std::shared_ptr<const Unary>& reference() const { return reference_; }
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
  std::shared_ptr<const Unary> reference_;
};

}  // namespace kiln::ops
