// Unary element-wise ops (math functions, activations, rounding, predicates), one class driven
// by an enum. Attributes (alpha, beta, gamma, lambd, bias...) are resolved by the translator.
#pragma once

#include <optional>

#include "core/op.h"
#include "ops/core/output_steps.h"

namespace kiln::ops {

enum class UnaryKind {
  Abs,
  Neg,
  Exp,
  Log,
  Sqrt,
  Reciprocal,
  Sin,
  Cos,
  Tan,
  Asin,
  Acos,
  Atan,
  Sinh,
  Cosh,
  Asinh,
  Acosh,
  Atanh,
  Sigmoid,
  Tanh,
  Relu,
  Elu,
  Selu,
  LeakyRelu,
  HardSigmoid,
  HardSwish,
  Softplus,
  Softsign,
  Celu,
  ThresholdedRelu,
  Shrink,
  Gelu,
  GeluTanh,
  Erf,
  Sign,
  Round,
  Ceil,
  Floor,
  IsNaN,
  IsInf,
  Not,
  BitwiseNot,
  Mish,   // x * tanh(softplus(x))
  Swish,  // x * sigmoid(alpha * x)
};

// Parameters of the parametric activations:
// Elu/Celu/LeakyRelu/ThresholdedRelu: alpha; Selu: alpha, gamma; HardSigmoid: alpha, beta;
// Shrink: lambd (alpha), bias (beta); IsInf: detect_positive, detect_negative; Swish: alpha.
struct UnaryParams {
  float alpha = 0.0f;
  float beta = 0.0f;
  float gamma = 0.0f;
  bool detect_positive = true;
  bool detect_negative = true;
  bool operator==(const UnaryParams&) const = default;
};

// The vectorized kernel (kernels/elementwise/vec_math's unary, kernels::UnaryFn) that computes
// a kind with its parameters, if there is one (Exp, Sigmoid, Tanh, Erf, Gelu, GeluTanh,
// LeakyRelu, Relu, HardSigmoid, HardSwish, Elu, Selu, Celu, Softplus, Mish, Softsign,
// ThresholdedRelu, Abs, Neg, Sqrt, Reciprocal, Log). The others (trigonometric, rounding,
// predicates, Shrink, Sign) run the reference op.
struct UnaryKernel {
  kernels::UnaryFn fn;
  float alpha = 0, beta = 0;
};
std::optional<UnaryKernel> unary_kernel(UnaryKind kind, const UnaryParams& params);

class Unary : public Op, public OutputStepSource {
 public:
  explicit Unary(UnaryKind kind, UnaryParams params = {}) : kind_(kind), params_(params) {}
  UnaryKind kind() const { return kind_; }
  const UnaryParams& params() const { return params_; }

  std::string name() const override;
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const Unary& o) { return std::tie(o.kind_, o.params_); });
  }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;
  // f32 kinds with a unary_kernel: a UnaryF32 (ops/elementwise/vectorized.h).
  OpPtr codegen(const FactRefs& inputs) const override;
  // The step this op is on a producer's output (ops/core/output_steps.h).
  std::optional<OutputStep> output_step(const FactRefs& inputs, size_t value) const override;
  bool is_reference_impl() const override { return true; }

 private:
  UnaryKind kind_;
  UnaryParams params_;
};

// Name of a unary kind ("Exp", "LeakyRelu"...).
const char* unary_kind_name(UnaryKind kind);

}  // namespace kiln::ops
