// SVMRegressor (ai.onnx.ml 1): sum of coefficient * kernel(x, support vector) + rho[0] (or,
// without support vectors, the linear form coefficients . x + rho[0]); one_class gives +-1.
#pragma once

#include "ops/ml/ml_common.h"
#include "ops/ml/svm_common.h"

namespace kiln::ops::ml {

class SvmRegressor : public Op {
 public:
  SvmRegressor(SvmKernelParams kernel, std::vector<float> coefficients,
               std::vector<float> support_vectors, int64_t n_supports, float rho, bool one_class,
               PostTransform transform);
  std::string name() const override { return "SVMRegressor"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const SvmRegressor& o) {
      return std::tie(o.kernel_, o.coefficients_, o.support_vectors_, o.vectors_, o.rho_,
                      o.one_class_, o.transform_);
    });
  }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;

 private:
  SvmKernelParams kernel_;
  std::vector<float> coefficients_, support_vectors_;
  int64_t vectors_, features_;
  float rho_;
  bool one_class_;
  PostTransform transform_;
};

}  // namespace kiln::ops::ml
