#include "ops/ml/ml_common.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "base/error.h"

namespace kiln::ops::ml {

PostTransform parse_post_transform(const std::string& text) {
  if (text == "NONE") return PostTransform::None;
  if (text == "SOFTMAX") return PostTransform::Softmax;
  if (text == "LOGISTIC") return PostTransform::Logistic;
  if (text == "SOFTMAX_ZERO") return PostTransform::SoftmaxZero;
  if (text == "PROBIT") return PostTransform::Probit;
  fail("unknown post_transform '{}' (NONE, SOFTMAX, LOGISTIC, SOFTMAX_ZERO or PROBIT)", text);
}

const char* post_transform_name(PostTransform t) {
  switch (t) {
    case PostTransform::None:
      return "NONE";
    case PostTransform::Softmax:
      return "SOFTMAX";
    case PostTransform::Logistic:
      return "LOGISTIC";
    case PostTransform::SoftmaxZero:
      return "SOFTMAX_ZERO";
    case PostTransform::Probit:
      return "PROBIT";
  }
  return "?";
}

float logistic(float v) {
  float e = 1.0f / (1.0f + std::exp(-std::abs(v)));
  return v < 0 ? 1.0f - e : e;
}

float probit(float p) {
  float x = 2.0f * p - 1.0f;
  float sign = x < 0 ? -1.0f : 1.0f;
  float ln = std::log((1.0f - x) * (1.0f + x));
  float a = 2.0f / (3.14159f * 0.147f) + 0.5f * ln;
  float erfinv = sign * std::sqrt(-a + std::sqrt(a * a - ln / 0.147f));
  return 1.41421356f * erfinv;
}

void transform_row(PostTransform t, float* row, int64_t n) {
  switch (t) {
    case PostTransform::None:
      return;
    case PostTransform::Logistic:
      for (int64_t i = 0; i < n; i++) row[i] = logistic(row[i]);
      return;
    case PostTransform::Probit:
      for (int64_t i = 0; i < n; i++) row[i] = probit(row[i]);
      return;
    case PostTransform::Softmax:
    case PostTransform::SoftmaxZero: {
      float top = -std::numeric_limits<float>::max();
      for (int64_t i = 0; i < n; i++) top = std::max(top, row[i]);
      const bool skip_zeros = t == PostTransform::SoftmaxZero;
      const float zero_scale = std::exp(-top);
      float sum = 0;
      for (int64_t i = 0; i < n; i++) {
        if (skip_zeros && std::abs(row[i]) <= 1e-7f) {
          row[i] *= zero_scale;
        } else {
          row[i] = std::exp(row[i] - top);
          sum += row[i];
        }
      }
      for (int64_t i = 0; i < n; i++) row[i] /= sum;
      return;
    }
  }
}

Rows rows_of(const Shape& shape, const std::string& op) {
  KILN_ENSURE(shape.size() == 1 || shape.size() == 2, "{}: input must be [C] or [N, C], got [{}]",
              op, shape_to_string(shape));
  if (shape.size() == 1) return {1, shape[0]};
  return {shape[0], shape[1]};
}

Rows rows_of(const std::vector<Dim>& shape, const std::string& op, Dim* n_dim) {
  KILN_ENSURE(shape.size() == 1 || shape.size() == 2,
              "{}: input must be [C] or [N, C], got rank {}", op, shape.size());
  *n_dim = shape.size() == 1 ? Dim(1) : shape[0];
  Rows r;
  r.c = shape.back().as_int().value_or(-1);
  return r;
}

void read_floats(const Tensor& t, float* out) {
  KILN_ENSURE(is_numeric(t.dtype()), "expected a numeric tensor, got {}", name_of(t.dtype()));
  dispatch_numeric(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = t.data<T>();
    for (int64_t i = 0; i < t.numel(); i++) out[i] = static_cast<float>(p[i]);
  });
}

void Labels::write(Tensor& out, int64_t i, size_t k) const {
  if (use_strings())
    out.data<std::string>()[i] = k < strings.size() ? strings[k] : std::to_string(k);
  else
    out.data<int64_t>()[i] = k < ints.size() ? ints[k] : static_cast<int64_t>(k);
}

}  // namespace kiln::ops::ml
