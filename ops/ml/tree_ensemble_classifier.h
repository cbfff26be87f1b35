// TreeEnsembleClassifier (ai.onnx.ml 1, 3, 5): class scores summed over the trees' leaves, plus
// base values, post-transformed; the label is the best class. Two classes whose leaves vote for
// one class only (the binary form scikit-learn exports) follow ONNX Runtime: the label by the
// score's sign (or > 0.5 when every weight is positive) and two score columns built from the
// one score. The best class is picked among the scores in float, or in double when the model
// gave its weights as *_as_tensor doubles (`double_precision`), as ONNX Runtime's two kernels do.
#pragma once

#include "ops/ml/tree_ensemble.h"

namespace kiln::ops::ml {

class TreeEnsembleClassifier : public Op {
 public:
  TreeEnsembleClassifier(Trees trees, Labels labels, PostTransform transform,
                         std::vector<double> base_values, bool double_precision = false);
  std::string name() const override { return "TreeEnsembleClassifier"; }
  bool same_as(const Op& other) const override {
    const auto* o = dynamic_cast<const TreeEnsembleClassifier*>(&other);
    return o && sum_.same_as(o->sum_) &&
           std::tie(labels_, transform_, base_values_, double_precision_) ==
               std::tie(o->labels_, o->transform_, o->base_values_, o->double_precision_);
  }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override { return sum_.cost(inputs); }

 private:
  TreeEnsemble sum_;  // the summed scores
  Labels labels_;
  PostTransform transform_;
  std::vector<double> base_values_;
  bool binary_ = false;            // two classes, leaves voting for one of them only
  bool positive_weights_ = false;  // every leaf weight >= 0
  bool double_precision_;          // labels from double scores
  int64_t n_classes_;
};

// The two score columns ONNX Runtime writes for a binary classifier's one score `s`:
// mode 0/1 (all weights positive): [1 - s, s]; mode 2/3: [-s, s], or [logistic(-s),
// logistic(s)] under LOGISTIC. PROBIT transforms s alone.
void binary_scores(float s, int mode, PostTransform t, float* out);

}  // namespace kiln::ops::ml
