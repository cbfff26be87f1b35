// Clip: clamps values into [min, max]. Bounds come from the constructor (opset < 11
// attributes) or from optional scalar inputs 1 and 2 (opset >= 11); absent means unbounded.
#pragma once

#include <optional>

#include "core/op.h"
#include "ops/core/output_steps.h"

namespace kiln::ops {

class Clip : public Op, public OutputStepSource {
 public:
  Clip(std::optional<double> min = std::nullopt, std::optional<double> max = std::nullopt)
      : min_(min), max_(max) {}
  // The attribute bounds (inputs 1 and 2 win when present).
  std::optional<double> min() const { return min_; }
  std::optional<double> max() const { return max_; }

  std::string name() const override { return "Clip"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const Clip& o) { return std::tie(o.min_, o.max_); });
  }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }
  // The step this op is on a producer's output (ops/core/output_steps.h).
  std::optional<OutputStep> output_step(const FactRefs& inputs, size_t value) const override;
  // The bounds given as attributes (opset < 11); inputs 1 and 2 take over when present.
  const std::optional<double>& min_attribute() const { return min_; }
  const std::optional<double>& max_attribute() const { return max_; }

 private:
  std::optional<double> min_;
  std::optional<double> max_;
};

}  // namespace kiln::ops
