// Small element-wise ai.onnx.ml operators: Scaler ((x - offset) * scale, float output),
// Binarizer (x > threshold ? 1 : 0, in x's type) and Imputer (values equal to the replaced one,
// or NaN when that is NaN, become the imputed value of their column). The offset, scale and
// imputed lists hold one value or one per column.
#pragma once

#include "ops/ml/ml_common.h"

namespace kiln::ops::ml {

enum class FeatureOpKind { Scaler, Binarizer, Imputer };

struct FeatureOpParams {
  std::vector<float> offset, scale;  // Scaler
  float threshold = 0;               // Binarizer
  std::vector<double> imputed;       // Imputer (floats or integers)
  double replaced = 0;
  bool operator==(const FeatureOpParams&) const = default;
};

class FeatureOp : public Op {
 public:
  FeatureOp(FeatureOpKind kind, FeatureOpParams p) : kind_(kind), p_(std::move(p)) {}
  std::string name() const override;
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const FeatureOp& o) { return std::tie(o.kind_, o.p_); });
  }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  FeatureOpKind kind_;
  FeatureOpParams p_;
};

}  // namespace kiln::ops::ml
