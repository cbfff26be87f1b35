#include "ops/ml/tree_ensemble_classifier.h"

#include <set>

#include "base/error.h"

namespace kiln::ops::ml {

void binary_scores(float s, int mode, PostTransform t, float* out) {
  if (t == PostTransform::Probit) {
    out[0] = probit(s);
    out[1] = 0;
    return;
  }
  if (mode <= 1) {
    out[0] = 1 - s;
    out[1] = s;
  } else if (t == PostTransform::Logistic) {
    out[0] = logistic(-s);
    out[1] = logistic(s);
  } else {
    out[0] = -s;
    out[1] = s;
  }
}

TreeEnsembleClassifier::TreeEnsembleClassifier(Trees trees, Labels labels, PostTransform transform,
                                               std::vector<double> base_values,
                                               bool double_precision)
    : sum_("TreeEnsembleClassifier", trees, Aggregate::Sum, PostTransform::None, {}),
      labels_(std::move(labels)),
      transform_(transform),
      base_values_(std::move(base_values)),
      double_precision_(double_precision),
      n_classes_(trees.n_targets) {
  KILN_ENSURE(labels_.size() == static_cast<size_t>(n_classes_),
              "TreeEnsembleClassifier: {} class labels for {} classes", labels_.size(), n_classes_);
  std::set<int64_t> voted;
  positive_weights_ = true;
  for (const auto& n : trees.nodes)
    for (const auto& [c, w] : n.weights) {
      voted.insert(c);
      positive_weights_ = positive_weights_ && w >= 0;
    }
  binary_ = n_classes_ == 2 && voted.size() == 1;
}

Attributes TreeEnsembleClassifier::attributes() const {
  Attributes a = sum_.attributes();
  a.erase(a.begin() + 2, a.end());
  a.push_back({"post_transform", post_transform_name(transform_)});
  return a;
}

std::vector<Fact> TreeEnsembleClassifier::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(is_numeric(x.dt), "{}: input must be numeric, got {}", name(), name_of(x.dt));
  Dim n;
  rows_of(x.shape, name(), &n);
  return {Fact(labels_.dtype(), std::vector<Dim>{n}),
          Fact(DatumType::F32, std::vector<Dim>{n, n_classes_})};
}

void TreeEnsembleClassifier::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  Rows r = rows_of(x.shape(), name());
  Shape& label_shape = ctx.temp_shape(0);
  label_shape.assign({r.n});
  Shape& score_shape = ctx.temp_shape(1);
  score_shape.assign({r.n, n_classes_});
  Tensor& labels = ctx.output(0, labels_.dtype(), label_shape);
  Tensor& scores = ctx.output(1, DatumType::F32, score_shape);
  float* xf = ctx.scratch<float>(static_cast<size_t>(x.numel()));
  read_floats(x, xf);
  double* s = ctx.scratch<double>(static_cast<size_t>(n_classes_));
  bool* has = ctx.scratch<bool>(static_cast<size_t>(n_classes_));
  float* z = scores.data<float>();
  for (int64_t i = 0; i < r.n; i++) {
    sum_.score_row(xf + i * r.c, r.c, s, has);
    float* row = z + i * n_classes_;
    if (n_classes_ > 2 || !binary_) {
      for (int64_t k = 0; k < n_classes_; k++) {
        double base = k < static_cast<int64_t>(base_values_.size()) ? base_values_[k] : 0;
        if (base_values_.size() == static_cast<size_t>(n_classes_) && !has[k]) has[k] = true;
        s[k] += base;
        row[k] = static_cast<float>(s[k]);
      }
      int64_t best = -1;
      for (int64_t k = 0; k < n_classes_; k++)
        if (has[k] && (best < 0 || (double_precision_ ? s[k] > s[best] : row[k] > row[best])))
          best = k;
      labels_.write(labels, i, static_cast<size_t>(std::max<int64_t>(best, 0)));
      transform_row(transform_, row, n_classes_);
      continue;
    }
    // Binary: one class gets the votes. As ONNX Runtime does: with two base values, or votes
    // for class 1, the row is the two scores (transformed); votes for class 0 alone give one
    // score, expanded to two columns. The label is class 1 when the score of the voted class
    // passes 0.5 (every weight positive) or 0.
    double s0 = s[0], s1 = s[1];
    const bool two_scores = has[1] || base_values_.size() == 2;
    if (base_values_.size() == 2) {
      if (has[1]) {
        s1 = base_values_[1] + s0;
        s0 = -s1;
      } else {
        s0 += base_values_[0];
        s1 += base_values_[1];
      }
    } else if (base_values_.size() == 1) {
      s0 += base_values_[0];
    }
    const double pos = has[1] ? s1 : s0;
    const bool positive = positive_weights_ ? pos > 0.5 : pos > 0;
    labels_.write(labels, i, positive ? 1 : 0);
    if (two_scores) {
      row[0] = static_cast<float>(s0);
      row[1] = static_cast<float>(s1);
      transform_row(transform_, row, 2);
    } else {
      const int mode = positive_weights_ ? (positive ? 0 : 1) : (positive ? 2 : 3);
      binary_scores(static_cast<float>(s0), mode, transform_, row);
    }
  }
}

}  // namespace kiln::ops::ml
