// SoftmaxCrossEntropyLoss: NegativeLogLikelihoodLoss of LogSoftmax(scores) along axis 1; the
// optional second output is that log-softmax.
#pragma once

#include <optional>

#include "ops/nn/nll_loss.h"

namespace kiln::ops {

class SoftmaxCrossEntropyLoss : public Op {
 public:
  SoftmaxCrossEntropyLoss(LossReduction reduction, std::optional<int64_t> ignore_index)
      : reduction_(reduction), ignore_index_(ignore_index) {}
  std::string name() const override { return "SoftmaxCrossEntropyLoss"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;

 private:
  LossReduction reduction_;
  std::optional<int64_t> ignore_index_;
};

}  // namespace kiln::ops
