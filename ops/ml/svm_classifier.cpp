#include "ops/ml/svm_classifier.h"

#include <algorithm>
#include <cmath>

#include "base/error.h"
#include "ops/ml/tree_ensemble_classifier.h"

namespace kiln::ops::ml {

namespace {

// Class probabilities from the pairwise ones r[i][j] (libsvm's multiclass_probability, the
// iteration ONNX Runtime runs).
void multiclass_probability(int64_t k, const std::vector<float>& r, float* p) {
  std::vector<float> q(static_cast<size_t>(k * k), 0.0f), qp(static_cast<size_t>(k), 0.0f);
  auto Q = [&](int64_t i, int64_t j) -> float& { return q[static_cast<size_t>(i * k + j)]; };
  auto R = [&](int64_t i, int64_t j) { return r[static_cast<size_t>(i * k + j)]; };
  const float eps = 0.005f / static_cast<float>(k);
  for (int64_t i = 0; i < k; i++) {
    p[i] = 1.0f / static_cast<float>(k);
    for (int64_t j = 0; j < i; j++) {
      Q(i, i) += R(j, i) * R(j, i);
      Q(i, j) = Q(j, i);
    }
    for (int64_t j = i + 1; j < k; j++) {
      Q(i, i) += R(j, i) * R(j, i);
      Q(i, j) = -R(j, i) * R(i, j);
    }
  }
  for (int loop = 0; loop < 100; loop++) {
    float pqp = 0;
    for (int64_t i = 0; i < k; i++) {
      qp[static_cast<size_t>(i)] = 0;
      for (int64_t j = 0; j < k; j++) qp[static_cast<size_t>(i)] += Q(i, j) * p[j];
      pqp += p[i] * qp[static_cast<size_t>(i)];
    }
    float max_error = 0;
    for (int64_t i = 0; i < k; i++)
      max_error = std::max(max_error, std::fabs(qp[static_cast<size_t>(i)] - pqp));
    if (max_error < eps) break;
    for (int64_t i = 0; i < k; i++) {
      float diff = (-qp[static_cast<size_t>(i)] + pqp) / Q(i, i);
      p[i] += diff;
      pqp = (pqp + diff * (diff * Q(i, i) + 2 * qp[static_cast<size_t>(i)])) / (1 + diff) /
            (1 + diff);
      for (int64_t j = 0; j < k; j++) {
        qp[static_cast<size_t>(j)] = (qp[static_cast<size_t>(j)] + diff * Q(i, j)) / (1 + diff);
        p[j] /= (1 + diff);
      }
    }
  }
}

}  // namespace

SvmClassifier::SvmClassifier(SvmClassifierModel m) : m_(std::move(m)) {
  classes_ = m_.labels.size() > 0 ? static_cast<int64_t>(m_.labels.size()) : 1;
  for (int64_t n : m_.vectors_per_class) {
    first_vector_.push_back(vectors_);
    vectors_ += n;
  }
  svc_ = vectors_ > 0;
  KILN_ENSURE(!m_.coefficients.empty(), "SVMClassifier: no coefficients");
  KILN_ENSURE(m_.prob_a.size() == m_.prob_b.size(), "SVMClassifier: prob_a and prob_b differ");
  if (svc_) {
    KILN_ENSURE(m_.support_vectors.size() % static_cast<size_t>(vectors_) == 0,
                "SVMClassifier: {} support vector values for {} vectors", m_.support_vectors.size(),
                vectors_);
    features_ = static_cast<int64_t>(m_.support_vectors.size()) / vectors_;
    KILN_ENSURE(static_cast<int64_t>(m_.vectors_per_class.size()) == classes_ &&
                    static_cast<int64_t>(m_.coefficients.size()) == (classes_ - 1) * vectors_ &&
                    static_cast<int64_t>(m_.rho.size()) >= classes_ * (classes_ - 1) / 2,
                "SVMClassifier: coefficients, rho or vectors_per_class do not fit {} classes",
                classes_);
  } else {
    m_.kernel.kind = SvmKernel::Linear;
    KILN_ENSURE(m_.coefficients.size() % static_cast<size_t>(classes_) == 0 && !m_.rho.empty(),
                "SVMClassifier: {} coefficients for {} classes", m_.coefficients.size(), classes_);
    features_ = static_cast<int64_t>(m_.coefficients.size()) / classes_;
  }
  positive_weights_ =
      std::all_of(m_.coefficients.begin(), m_.coefficients.end(), [](float v) { return v >= 0; });
}

Attributes SvmClassifier::attributes() const {
  return {{"classes", std::to_string(classes_)},
          {"kernel_type", svm_kernel_name(m_.kernel.kind)},
          {"support_vectors", std::to_string(vectors_)},
          {"post_transform", post_transform_name(m_.transform)}};
}

int64_t SvmClassifier::score_columns() const {
  if (svc_ && m_.prob_a.empty()) return classes_ > 2 ? classes_ * (classes_ - 1) / 2 : 2;
  return classes_;
}

std::vector<Fact> SvmClassifier::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(is_numeric(x.dt), "SVMClassifier: input must be numeric, got {}", name_of(x.dt));
  Dim n;
  Rows r = rows_of(x.shape, name(), &n);
  KILN_ENSURE(r.c < 0 || r.c == features_, "SVMClassifier: {} features, the model has {}", r.c,
              features_);
  return {Fact(m_.labels.dtype(), std::vector<Dim>{n}),
          Fact(DatumType::F32, std::vector<Dim>{n, score_columns()})};
}

Cost SvmClassifier::cost(const FactRefs& inputs) const {
  Cost c;
  c.fma = required(inputs, 0, name()).volume() * Dim(svc_ ? vectors_ : classes_);
  return c;
}

void SvmClassifier::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  Rows r = rows_of(x.shape(), name());
  KILN_ENSURE(r.c == features_, "SVMClassifier: {} features, the model has {}", r.c, features_);
  const int64_t cols = score_columns();
  Shape& ls = ctx.temp_shape(0);
  ls.assign({r.n});
  Shape& ss = ctx.temp_shape(1);
  ss.assign({r.n, cols});
  Tensor& labels = ctx.output(0, m_.labels.dtype(), ls);
  Tensor& scores = ctx.output(1, DatumType::F32, ss);
  float* xf = ctx.scratch<float>(static_cast<size_t>(x.numel()));
  read_floats(x, xf);
  const int64_t pairs = classes_ * (classes_ - 1) / 2;
  std::vector<float> kernels(static_cast<size_t>(std::max<int64_t>(vectors_, 1)));
  std::vector<float> decisions(static_cast<size_t>(std::max<int64_t>(pairs, 1)));
  std::vector<int64_t> votes(static_cast<size_t>(classes_));
  std::vector<float> pairwise(static_cast<size_t>(classes_ * classes_));
  float* z = scores.data<float>();
  for (int64_t i = 0; i < r.n; i++) {
    const float* row_x = xf + i * features_;
    float* row = z + i * cols;
    if (!svc_) {  // linear: one score per class, rho[0] added to each
      for (int64_t k = 0; k < classes_; k++)
        row[k] = m_.kernel(row_x, m_.coefficients.data() + k * features_, features_) + m_.rho[0];
      int64_t best = std::max_element(row, row + classes_) - row;
      if (classes_ == 2) {
        float top = row[best];
        size_t label = (positive_weights_ && top >= 0.5f) || (top > 0 && !positive_weights_)
                           ? 1
                           : static_cast<size_t>(best);
        m_.labels.write(labels, i, label);
      } else {
        m_.labels.write(labels, i, static_cast<size_t>(best));
      }
      transform_row(m_.transform, row, classes_);
      continue;
    }
    for (int64_t v = 0; v < vectors_; v++)
      kernels[static_cast<size_t>(v)] =
          m_.kernel(row_x, m_.support_vectors.data() + v * features_, features_);
    std::fill(votes.begin(), votes.end(), 0);
    int64_t pair = 0;
    for (int64_t a = 0; a < classes_ - 1; a++) {
      for (int64_t b = a + 1; b < classes_; b++, pair++) {
        double sum = 0;
        for (int64_t m = 0; m < m_.vectors_per_class[static_cast<size_t>(a)]; m++) {
          int64_t v = first_vector_[static_cast<size_t>(a)] + m;
          sum += m_.coefficients[static_cast<size_t>((b - 1) * vectors_ + v)] *
                 kernels[static_cast<size_t>(v)];
        }
        for (int64_t m = 0; m < m_.vectors_per_class[static_cast<size_t>(b)]; m++) {
          int64_t v = first_vector_[static_cast<size_t>(b)] + m;
          sum += m_.coefficients[static_cast<size_t>(a * vectors_ + v)] *
                 kernels[static_cast<size_t>(v)];
        }
        sum += m_.rho[static_cast<size_t>(pair)];
        decisions[static_cast<size_t>(pair)] = static_cast<float>(sum);
        votes[static_cast<size_t>(sum > 0 ? a : b)]++;
      }
    }
    const int64_t winner = std::max_element(votes.begin(), votes.end()) - votes.begin();
    m_.labels.write(labels, i, static_cast<size_t>(winner));
    if (!m_.prob_a.empty()) {
      std::fill(pairwise.begin(), pairwise.end(), 0.0f);
      int64_t index = 0;
      for (int64_t a = 0; a < classes_ - 1; a++) {
        for (int64_t b = a + 1; b < classes_; b++, index++) {
          float val =
              decisions[static_cast<size_t>(index)] * m_.prob_a[static_cast<size_t>(index)] +
              m_.prob_b[static_cast<size_t>(index)];
          float p = std::min(std::max(1 - logistic(val), 1.0e-7f), 1 - 1.0e-7f);
          pairwise[static_cast<size_t>(a * classes_ + b)] = p;
          pairwise[static_cast<size_t>(b * classes_ + a)] = 1 - p;
        }
      }
      multiclass_probability(classes_, pairwise, row);
      transform_row(m_.transform, row, classes_);
    } else if (classes_ > 2) {
      std::copy(decisions.begin(), decisions.begin() + pairs, row);
      transform_row(m_.transform, row, pairs);
    } else {
      binary_scores(decisions[0], m_.transform == PostTransform::None ? 2 : 0, m_.transform, row);
    }
  }
}

}  // namespace kiln::ops::ml
