// ConcatConvs (optimize stage, from the concat-convs pass): a Concat along channels of
// ConvPacked outputs (squeezenet's fire modules, inception blocks), each conv writing straight
// into its channel range of the one output, so the concatenation copies nothing. Node inputs:
// each conv's own inputs, conv after conv, in the Concat's order.
#pragma once

#include <memory>
#include <vector>

#include "ops/nn/conv_packed.h"

namespace kiln::ops {

class ConcatConvs : public Op {
 public:
  struct Part {
    std::shared_ptr<const ConvPacked> conv;
    size_t inputs = 0;  // how many node inputs this conv takes
  };
  static constexpr size_t kMaxParts = 8;

  explicit ConcatConvs(std::vector<Part> parts);
  std::string name() const override { return "ConcatConvs"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;
  // The parts' states (their plans).
  std::unique_ptr<OpState> make_state(const FactRefs& inputs) const override;
  const std::vector<Part>& parts() const { return parts_; }

 private:
  std::vector<Part> parts_;
};

}  // namespace kiln::ops
