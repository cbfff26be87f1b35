// LpNormalization: x / ||x||_p along one axis (p = 1 or 2); a zero norm gives zeros.
#pragma once

#include "core/op.h"

namespace kiln::ops {

class LpNorm : public Op {
 public:
  LpNorm(int64_t axis, int64_t p) : axis_(axis), p_(p) {}
  std::string name() const override { return "LpNormalization"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const LpNorm& o) { return std::tie(o.axis_, o.p_); });
  }
  Attributes attributes() const override {
    return {{"axis", std::to_string(axis_)}, {"p", std::to_string(p_)}};
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
  int64_t p_;
};

}  // namespace kiln::ops
