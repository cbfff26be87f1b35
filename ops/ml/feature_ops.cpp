#include "ops/ml/feature_ops.h"

#include <cmath>

#include "base/error.h"

namespace kiln::ops::ml {

std::string FeatureOp::name() const {
  switch (kind_) {
    case FeatureOpKind::Scaler:
      return "Scaler";
    case FeatureOpKind::Binarizer:
      return "Binarizer";
    case FeatureOpKind::Imputer:
      return "Imputer";
  }
  return "?";
}

Attributes FeatureOp::attributes() const {
  switch (kind_) {
    case FeatureOpKind::Scaler:
      return {{"offsets", std::to_string(p_.offset.size())},
              {"scales", std::to_string(p_.scale.size())}};
    case FeatureOpKind::Binarizer:
      return {{"threshold", fmt::format("{}", p_.threshold)}};
    case FeatureOpKind::Imputer:
      return {{"replaced", fmt::format("{}", p_.replaced)}};
  }
  return {};
}

std::vector<Fact> FeatureOp::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(is_numeric(x.dt), "{}: input must be numeric, got {}", name(), name_of(x.dt));
  return {Fact(kind_ == FeatureOpKind::Scaler ? DatumType::F32 : x.dt, x.shape)};
}

void FeatureOp::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  const int64_t cols = x.rank() ? x.shape().back() : 1;
  auto pick = [&](const auto& v, int64_t i) {
    KILN_ENSURE(v.size() == 1 || static_cast<int64_t>(v.size()) == cols,
                "{}: {} parameter values for {} columns", name(), v.size(), cols);
    return v[v.size() == 1 ? 0 : static_cast<size_t>(i % cols)];
  };
  if (kind_ == FeatureOpKind::Scaler) {
    Tensor& y = ctx.output(0, DatumType::F32, x.shape());
    float* yd = y.data<float>();
    read_floats(x, yd);
    for (int64_t i = 0; i < x.numel(); i++) {
      float off = p_.offset.empty() ? 0.0f : pick(p_.offset, i);
      float sc = p_.scale.empty() ? 1.0f : pick(p_.scale, i);
      yd[i] = (yd[i] - off) * sc;
    }
    return;
  }
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  dispatch_numeric(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xd = x.data<T>();
    T* yd = y.data<T>();
    for (int64_t i = 0; i < x.numel(); i++) {
      double v = static_cast<double>(xd[i]);
      if (kind_ == FeatureOpKind::Binarizer) {
        yd[i] = std::isnan(v) ? xd[i] : static_cast<T>(v > p_.threshold ? 1.0f : 0.0f);
      } else {
        bool hit = std::isnan(p_.replaced) ? std::isnan(v) : v == p_.replaced;
        yd[i] = hit ? static_cast<T>(pick(p_.imputed, i)) : xd[i];
      }
    }
  });
}

}  // namespace kiln::ops::ml
