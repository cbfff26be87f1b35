// Normalizer (ai.onnx.ml 1): each row of [N, C] (or the one row of [C]) divided by its max
// (MAX), the sum of its absolute values (L1) or its Euclidean norm (L2); a zero divisor leaves
// the row as it is. Float output.
#pragma once

#include "ops/ml/ml_common.h"

namespace kiln::ops::ml {

enum class NormKind { Max, L1, L2 };

class Normalizer : public Op {
 public:
  explicit Normalizer(NormKind kind) : kind_(kind) {}
  std::string name() const override { return "Normalizer"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const Normalizer& o) { return std::tie(o.kind_); });
  }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override {
    Cost c;
    c.other = required(inputs, 0, name()).volume();
    return c;
  }

 private:
  NormKind kind_;
};

}  // namespace kiln::ops::ml
