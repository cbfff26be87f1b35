// LinearClassifier (ai.onnx.ml 1): scores = X * coefficients^T + intercepts per class, the
// label the best class; one coefficient row with two labels is a binary classifier (label by
// the score's sign, scores [1 - p, p] with p the post-transformed score), as ONNX Runtime does.
#pragma once

#include "ops/ml/ml_common.h"

namespace kiln::ops::ml {

class LinearClassifier : public Op {
 public:
  LinearClassifier(std::vector<float> coefficients, std::vector<float> intercepts, Labels labels,
                   PostTransform transform);
  std::string name() const override { return "LinearClassifier"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const LinearClassifier& o) {
      return std::tie(o.coefficients_, o.intercepts_, o.labels_, o.transform_);
    });
  }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;

 private:
  std::vector<float> coefficients_, intercepts_;
  Labels labels_;
  PostTransform transform_;
  int64_t classes_;   // coefficient rows
  int64_t features_;  // coefficients per row
  bool binary_;       // one row, two labels: two score columns
};

}  // namespace kiln::ops::ml
