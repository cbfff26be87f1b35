#include "ops/ml/linear_classifier.h"

#include "base/error.h"

namespace kiln::ops::ml {

LinearClassifier::LinearClassifier(std::vector<float> coefficients, std::vector<float> intercepts,
                                   Labels labels, PostTransform transform)
    : coefficients_(std::move(coefficients)),
      intercepts_(std::move(intercepts)),
      labels_(std::move(labels)),
      transform_(transform) {
  classes_ = !intercepts_.empty() ? static_cast<int64_t>(intercepts_.size())
                                  : static_cast<int64_t>(labels_.size() == 2 ? 1 : labels_.size());
  KILN_ENSURE(classes_ > 0 && !coefficients_.empty() &&
                  coefficients_.size() % static_cast<size_t>(classes_) == 0,
              "LinearClassifier: {} coefficients for {} classes", coefficients_.size(), classes_);
  features_ = static_cast<int64_t>(coefficients_.size()) / classes_;
  binary_ = classes_ == 1 && labels_.size() == 2;
  KILN_ENSURE(binary_ || labels_.size() == static_cast<size_t>(classes_) || classes_ == 1,
              "LinearClassifier: {} labels for {} classes", labels_.size(), classes_);
}

Attributes LinearClassifier::attributes() const {
  return {{"classes", std::to_string(binary_ ? 2 : classes_)},
          {"features", std::to_string(features_)},
          {"post_transform", post_transform_name(transform_)}};
}

std::vector<Fact> LinearClassifier::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(is_numeric(x.dt), "LinearClassifier: input must be numeric, got {}", name_of(x.dt));
  Dim n;
  Rows r = rows_of(x.shape, name(), &n);
  KILN_ENSURE(r.c < 0 || r.c == features_, "LinearClassifier: {} features, the model has {}", r.c,
              features_);
  return {Fact(labels_.dtype(), std::vector<Dim>{n}),
          Fact(DatumType::F32, std::vector<Dim>{n, binary_ ? 2 : classes_})};
}

Cost LinearClassifier::cost(const FactRefs& inputs) const {
  Cost c;
  c.fma = required(inputs, 0, name()).volume() * Dim(classes_);
  return c;
}

void LinearClassifier::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  Rows r = rows_of(x.shape(), name());
  KILN_ENSURE(r.c == features_, "LinearClassifier: {} features, the model has {}", r.c, features_);
  const int64_t cols = binary_ ? 2 : classes_;
  Shape& ls = ctx.temp_shape(0);
  ls.assign({r.n});
  Shape& ss = ctx.temp_shape(1);
  ss.assign({r.n, cols});
  Tensor& labels = ctx.output(0, labels_.dtype(), ls);
  Tensor& scores = ctx.output(1, DatumType::F32, ss);
  float* xf = ctx.scratch<float>(static_cast<size_t>(x.numel()));
  read_floats(x, xf);
  float* z = scores.data<float>();
  for (int64_t i = 0; i < r.n; i++) {
    float* row = z + i * cols;
    for (int64_t k = 0; k < classes_; k++) {
      float s = intercepts_.empty() ? 0.0f : intercepts_[static_cast<size_t>(k)];
      for (int64_t j = 0; j < features_; j++)
        s += xf[i * features_ + j] * coefficients_[static_cast<size_t>(k * features_ + j)];
      row[k] = s;
    }
    if (binary_) {
      const float s = row[0];
      labels_.write(labels, i, s > 0 ? 1 : 0);
      float p = s;
      if (transform_ == PostTransform::Logistic) p = logistic(s);
      if (transform_ == PostTransform::Probit) p = probit(s);
      row[0] = 1 - p;
      row[1] = p;
      continue;
    }
    if (classes_ == 1) {
      labels_.write(labels, i, row[0] > 0 ? 1 : 0);
    } else {
      int64_t best = 0;
      for (int64_t k = 1; k < classes_; k++)
        if (row[k] > row[best]) best = k;
      labels_.write(labels, i, static_cast<size_t>(best));
    }
    transform_row(transform_, row, classes_);
  }
}

}  // namespace kiln::ops::ml
