// NegativeLogLikelihoodLoss: loss[n, d...] = -input[n, target[n, d...], d...] * weight[target],
// with an ignored class index, and reduction none / sum / mean (mean divides by the sum of the
// weights actually used).
#pragma once

#include <optional>

#include "core/op.h"

namespace kiln::ops {

enum class LossReduction { None, Sum, Mean };

// Parses "none", "sum", "mean"; throws on anything else.
LossReduction parse_loss_reduction(const std::string& text);
std::string loss_reduction_name(LossReduction r);

class NllLoss : public Op {
 public:
  NllLoss(LossReduction reduction, std::optional<int64_t> ignore_index)
      : reduction_(reduction), ignore_index_(ignore_index) {}
  std::string name() const override { return "NegativeLogLikelihoodLoss"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  LossReduction reduction_;
  std::optional<int64_t> ignore_index_;
};

// Shared by NllLoss and SoftmaxCrossEntropyLoss.
// Checks input [N, C, d...], target [N, d...] (integer), weight [C]; returns the loss fact.
Fact nll_loss_fact(const std::string& op, const Fact& input, const Fact& target, const Fact* weight,
                   LossReduction reduction);
// The loss from log-probabilities `logp` laid out like the input [N, C, D]; writes output 0.
void nll_loss_eval(const std::string& op, EvalContext& ctx, const std::vector<double>& logp,
                   const Tensor& input, const Tensor& target, const Tensor* weight,
                   LossReduction reduction, std::optional<int64_t> ignore_index);

}  // namespace kiln::ops
