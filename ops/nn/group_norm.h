// GroupNormalization (opset 18 and 21): normalizes each (batch, group of channels) by its mean
// and variance, then scales and shifts. Opset 18 takes one scale and bias per group, opset 21
// one per channel. Statistics in double whatever the input type (stash_type asks for at least
// float).
#pragma once

#include "core/op.h"

namespace kiln::ops {

class GroupNorm : public Op {
 public:
  GroupNorm(int64_t num_groups, float epsilon, bool per_channel)
      : num_groups_(num_groups), epsilon_(epsilon), per_channel_(per_channel) {}
  std::string name() const override { return "GroupNormalization"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const GroupNorm& o) {
      return std::tie(o.num_groups_, o.epsilon_, o.per_channel_);
    });
  }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override {
    Cost c;
    c.other = required(inputs, 0, name()).volume();
    return c;
  }

 private:
  int64_t num_groups_;
  float epsilon_;
  bool per_channel_;
};

}  // namespace kiln::ops
