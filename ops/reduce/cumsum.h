// CumSum: cumulative sum along an axis given as input 1 (a scalar), optionally exclusive (each
// output excludes its own element) and/or reversed (sums from the end).
#pragma once

#include "core/op.h"

namespace kiln::ops {

class CumSum : public Op {
 public:
  CumSum(bool exclusive, bool reverse) : exclusive_(exclusive), reverse_(reverse) {}
  std::string name() const override { return "CumSum"; }
  Attributes attributes() const override {
    return {{"exclusive", exclusive_ ? "1" : "0"}, {"reverse", reverse_ ? "1" : "0"}};
  }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  bool exclusive_;
  bool reverse_;
};

}  // namespace kiln::ops
