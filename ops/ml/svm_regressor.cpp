#include "ops/ml/svm_regressor.h"

#include "base/error.h"

namespace kiln::ops::ml {

SvmRegressor::SvmRegressor(SvmKernelParams kernel, std::vector<float> coefficients,
                           std::vector<float> support_vectors, int64_t n_supports, float rho,
                           bool one_class, PostTransform transform)
    : kernel_(kernel),
      coefficients_(std::move(coefficients)),
      support_vectors_(std::move(support_vectors)),
      vectors_(n_supports),
      rho_(rho),
      one_class_(one_class),
      transform_(transform) {
  KILN_ENSURE(!coefficients_.empty(), "SVMRegressor: no coefficients");
  if (vectors_ > 0) {
    KILN_ENSURE(support_vectors_.size() % static_cast<size_t>(vectors_) == 0 &&
                    coefficients_.size() == static_cast<size_t>(vectors_),
                "SVMRegressor: {} support vector values and {} coefficients for {} vectors",
                support_vectors_.size(), coefficients_.size(), vectors_);
    features_ = static_cast<int64_t>(support_vectors_.size()) / vectors_;
  } else {
    kernel_.kind = SvmKernel::Linear;
    features_ = static_cast<int64_t>(coefficients_.size());
  }
}

Attributes SvmRegressor::attributes() const {
  return {{"kernel_type", svm_kernel_name(kernel_.kind)},
          {"support_vectors", std::to_string(vectors_)},
          {"one_class", one_class_ ? "1" : "0"}};
}

std::vector<Fact> SvmRegressor::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(is_numeric(x.dt), "SVMRegressor: input must be numeric, got {}", name_of(x.dt));
  Dim n;
  Rows r = rows_of(x.shape, name(), &n);
  KILN_ENSURE(r.c < 0 || r.c == features_, "SVMRegressor: {} features, the model has {}", r.c,
              features_);
  return {Fact(DatumType::F32, std::vector<Dim>{n, 1})};
}

Cost SvmRegressor::cost(const FactRefs& inputs) const {
  Cost c;
  c.fma = required(inputs, 0, name()).volume() * Dim(vectors_ > 0 ? vectors_ : 1);
  return c;
}

void SvmRegressor::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  Rows r = rows_of(x.shape(), name());
  KILN_ENSURE(r.c == features_, "SVMRegressor: {} features, the model has {}", r.c, features_);
  Shape& shape = ctx.temp_shape(0);
  shape.assign({r.n, 1});
  Tensor& y = ctx.output(0, DatumType::F32, shape);
  float* xf = ctx.scratch<float>(static_cast<size_t>(x.numel()));
  read_floats(x, xf);
  float* yd = y.data<float>();
  for (int64_t i = 0; i < r.n; i++) {
    const float* row = xf + i * features_;
    float s;
    if (vectors_ > 0) {
      s = 0;
      for (int64_t v = 0; v < vectors_; v++)
        s += coefficients_[static_cast<size_t>(v)] *
             kernel_(row, support_vectors_.data() + v * features_, features_);
      s += rho_;
    } else {
      s = kernel_(row, coefficients_.data(), features_) + rho_;
    }
    if (one_class_) s = s > 0 ? 1.0f : -1.0f;
    if (transform_ == PostTransform::Probit) s = probit(s);
    yd[i] = s;
  }
}

}  // namespace kiln::ops::ml
