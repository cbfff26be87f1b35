// Concat: joins tensors along an axis. Propagates symbolic values of shape-like inputs.
#pragma once

#include "core/op.h"

namespace kiln::ops {

class Concat : public Op {
 public:
  explicit Concat(int64_t axis) : axis_(axis) {}
  int64_t axis() const { return axis_; }
  std::string name() const override { return "Concat"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const Concat& o) { return std::tie(o.axis_); });
  }
  Attributes attributes() const override { return {{"axis", std::to_string(axis_)}}; }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  int64_t axis_;
};

}  // namespace kiln::ops
