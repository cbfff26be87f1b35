// RMSNormalization (opset 23): y = x / sqrt(mean(x^2 over axes [axis, rank)) + epsilon) * scale,
// scale unidirectionally broadcast to x. The mean square is accumulated in double, the rest
// computed in float (double for f64) and rounded to x's type once.
#pragma once

#include "core/op.h"

namespace kiln::ops {

class RmsNorm : public Op {
 public:
  RmsNorm(int64_t axis, float epsilon) : axis_(axis), epsilon_(epsilon) {}
  std::string name() const override { return "RMSNormalization"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other,
                       [](const RmsNorm& o) { return std::tie(o.axis_, o.epsilon_); });
  }
  Attributes attributes() const override {
    return {{"axis", std::to_string(axis_)}, {"epsilon", fmt::format("{}", epsilon_)}};
  }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override {
    Cost c;
    c.other = required(inputs, 0, name()).volume();
    return c;
  }

 private:
  int64_t axis_;
  float epsilon_;
};

}  // namespace kiln::ops
