// Binary element-wise ops with numpy broadcasting: arithmetic, Pow, Mod, bit shifts, logical
// and bitwise ops, comparisons (bool output) and PRelu (slope broadcast to the input's shape).
#pragma once

#include <optional>

#include "core/op.h"
#include "ops/core/output_steps.h"

namespace kiln::ops {

enum class BinaryKind {
  Add,
  Sub,
  Mul,
  Div,
  Pow,
  Mod,   // integer modulo with the sign of the divisor (Python semantics), floats likewise
  FMod,  // C fmod: the sign of the dividend
  ShiftLeft,
  ShiftRight,
  And,
  Or,
  Xor,
  BitwiseAnd,
  BitwiseOr,
  BitwiseXor,
  Equal,
  Greater,
  Less,
  GreaterOrEqual,
  LessOrEqual,
  PRelu,
};

class Binary : public Op, public OutputStepSource {
 public:
  explicit Binary(BinaryKind kind) : kind_(kind) {}
  // Opset < 7 "broadcast=1, axis=k": B's dims line up with A's starting at axis k (instead of
  // numpy's right alignment).
  Binary(BinaryKind kind, int64_t legacy_axis) : kind_(kind), legacy_axis_(legacy_axis) {}
  BinaryKind kind() const { return kind_; }

  std::string name() const override;
  bool same_as(const Op& other) const override {
    return same_fields(*this, other,
                       [](const Binary& o) { return std::tie(o.kind_, o.legacy_axis_); });
  }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  // Div, Pow, Mod, FMod count one costly operation per output element; the rest are cheap.
  Cost cost(const FactRefs& inputs) const override;
  // f32 Add/Sub/Mul/Div, Pow by a constant 2: a BinaryF32 (ops/elementwise/vectorized.h).
  OpPtr codegen(const FactRefs& inputs) const override;
  // The step this op is on a producer's output (ops/core/output_steps.h).
  std::optional<OutputStep> output_step(const FactRefs& inputs, size_t value) const override;
  bool is_reference_impl() const override { return true; }

 private:
  template <typename D>
  std::vector<D> align_b(size_t rank_a, const std::vector<D>& b_shape) const;

  BinaryKind kind_;
  std::optional<int64_t> legacy_axis_;
};

}  // namespace kiln::ops
