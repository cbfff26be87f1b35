// ArgMax / ArgMin: index (i64) of the largest / smallest element along one axis; ties go to
// the first occurrence, or the last one with select_last_index.
#pragma once

#include "core/op.h"

namespace kiln::ops {

class ArgReduce : public Op {
 public:
  ArgReduce(bool is_max, int64_t axis, bool keepdims, bool select_last_index)
      : is_max_(is_max), axis_(axis), keepdims_(keepdims), last_(select_last_index) {}
  std::string name() const override { return is_max_ ? "ArgMax" : "ArgMin"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  bool is_max_;
  int64_t axis_;
  bool keepdims_;
  bool last_;
};

}  // namespace kiln::ops
