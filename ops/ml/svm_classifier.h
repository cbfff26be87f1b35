// SVMClassifier (ai.onnx.ml 1): libsvm's one-against-one classifier (support vectors per class,
// one decision value per pair of classes, votes), with pairwise probabilities turned into class
// probabilities (prob_a, prob_b; Wu, Lin and Weng's method) when given; or liblinear's linear
// form (no support vectors: one coefficient row per class). Score layouts follow ONNX Runtime.
#pragma once

#include "ops/ml/ml_common.h"
#include "ops/ml/svm_common.h"

namespace kiln::ops::ml {

struct SvmClassifierModel {
  SvmKernelParams kernel;
  std::vector<float> coefficients, support_vectors, rho, prob_a, prob_b;
  std::vector<int64_t> vectors_per_class;
  Labels labels;
  PostTransform transform = PostTransform::None;
  bool operator==(const SvmClassifierModel&) const = default;
};

class SvmClassifier : public Op {
 public:
  explicit SvmClassifier(SvmClassifierModel m);
  std::string name() const override { return "SVMClassifier"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const SvmClassifier& o) { return std::tie(o.m_); });
  }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;

 private:
  int64_t score_columns() const;
  SvmClassifierModel m_;
  int64_t classes_, vectors_ = 0, features_;
  bool svc_;  // support vectors (else the linear form)
  std::vector<int64_t> first_vector_;
  bool positive_weights_;
};

}  // namespace kiln::ops::ml
