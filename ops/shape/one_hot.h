// OneHot: indices -> a new axis of length depth holding values[1] at the index, values[0]
// elsewhere. Negative indices count from depth; out-of-range ones give an all-off row.
#pragma once

#include "core/op.h"

namespace kiln::ops {

class OneHot : public Op {
 public:
  explicit OneHot(int64_t axis = -1) : axis_(axis) {}
  std::string name() const override { return "OneHot"; }
  Attributes attributes() const override { return {{"axis", std::to_string(axis_)}}; }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  int64_t axis_;
};

}  // namespace kiln::ops
