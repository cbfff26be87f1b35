#include "ops/ml/linear_regressor.h"

#include "base/error.h"

namespace kiln::ops::ml {

LinearRegressor::LinearRegressor(std::vector<float> coefficients, std::vector<float> intercepts,
                                 int64_t targets, PostTransform transform)
    : coefficients_(std::move(coefficients)),
      intercepts_(std::move(intercepts)),
      targets_(targets),
      transform_(transform) {
  KILN_ENSURE(targets_ > 0 && !coefficients_.empty() &&
                  coefficients_.size() % static_cast<size_t>(targets_) == 0,
              "LinearRegressor: {} coefficients for {} targets", coefficients_.size(), targets_);
  KILN_ENSURE(intercepts_.empty() || intercepts_.size() == static_cast<size_t>(targets_),
              "LinearRegressor: {} intercepts for {} targets", intercepts_.size(), targets_);
  features_ = static_cast<int64_t>(coefficients_.size()) / targets_;
}

Attributes LinearRegressor::attributes() const {
  return {{"targets", std::to_string(targets_)},
          {"features", std::to_string(features_)},
          {"post_transform", post_transform_name(transform_)}};
}

std::vector<Fact> LinearRegressor::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(is_numeric(x.dt), "LinearRegressor: input must be numeric, got {}", name_of(x.dt));
  Dim n;
  Rows r = rows_of(x.shape, name(), &n);
  KILN_ENSURE(r.c < 0 || r.c == features_, "LinearRegressor: {} features, the model has {}", r.c,
              features_);
  return {Fact(DatumType::F32, std::vector<Dim>{n, targets_})};
}

Cost LinearRegressor::cost(const FactRefs& inputs) const {
  Cost c;
  c.fma = required(inputs, 0, name()).volume() * Dim(targets_);
  return c;
}

void LinearRegressor::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  Rows r = rows_of(x.shape(), name());
  KILN_ENSURE(r.c == features_, "LinearRegressor: {} features, the model has {}", r.c, features_);
  Shape& shape = ctx.temp_shape(0);
  shape.assign({r.n, targets_});
  Tensor& y = ctx.output(0, DatumType::F32, shape);
  float* xf = ctx.scratch<float>(static_cast<size_t>(x.numel()));
  read_floats(x, xf);
  float* yd = y.data<float>();
  for (int64_t i = 0; i < r.n; i++) {
    float* row = yd + i * targets_;
    for (int64_t t = 0; t < targets_; t++) {
      float s = intercepts_.empty() ? 0.0f : intercepts_[static_cast<size_t>(t)];
      for (int64_t j = 0; j < features_; j++)
        s += xf[i * features_ + j] * coefficients_[static_cast<size_t>(t * features_ + j)];
      row[t] = s;
    }
    if (targets_ > 1 || transform_ == PostTransform::Probit ||
        transform_ == PostTransform::Logistic)
      transform_row(transform_, row, targets_);
  }
}

}  // namespace kiln::ops::ml
