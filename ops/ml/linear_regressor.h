// LinearRegressor (ai.onnx.ml 1): Y = X * coefficients^T + intercepts, `targets` outputs per
// row, then the post-transform.
#pragma once

#include "ops/ml/ml_common.h"

namespace kiln::ops::ml {

class LinearRegressor : public Op {
 public:
  LinearRegressor(std::vector<float> coefficients, std::vector<float> intercepts, int64_t targets,
                  PostTransform transform);
  std::string name() const override { return "LinearRegressor"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const LinearRegressor& o) {
      return std::tie(o.coefficients_, o.intercepts_, o.targets_, o.transform_);
    });
  }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;

 private:
  std::vector<float> coefficients_, intercepts_;
  int64_t targets_, features_;
  PostTransform transform_;
};

}  // namespace kiln::ops::ml
