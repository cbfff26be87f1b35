// ReverseSequence: reverses the first sequence_lens[b] elements along the time axis of each
// batch entry b, leaving the rest in place.
#pragma once

#include "core/op.h"

namespace kiln::ops {

class ReverseSequence : public Op {
 public:
  ReverseSequence(int64_t batch_axis = 1, int64_t time_axis = 0)
      : batch_axis_(batch_axis), time_axis_(time_axis) {}
  std::string name() const override { return "ReverseSequence"; }
  Attributes attributes() const override {
    return {{"batch_axis", std::to_string(batch_axis_)}, {"time_axis", std::to_string(time_axis_)}};
  }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  int64_t batch_axis_, time_axis_;
};

}  // namespace kiln::ops
