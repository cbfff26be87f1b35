// Pad: constant / reflect / edge / wrap padding. Pads (begin values then end values, per padded
// axis) come from the attribute (before opset 11) or input 1; the constant value from the
// attribute or input 2; the padded axes (opset 18) from input 3. Negative pads crop.
#pragma once

#include <optional>

#include "core/op.h"

namespace kiln::ops {

enum class PadMode { Constant, Reflect, Edge, Wrap };

class Pad : public Op {
 public:
  Pad(PadMode mode, std::optional<std::vector<int64_t>> pads = std::nullopt, double value = 0)
      : mode_(mode), pads_(std::move(pads)), value_(value) {}
  std::string name() const override { return "Pad"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  // Per-axis (begin, end) pads for this rank from pads and axes.
  std::vector<std::pair<int64_t, int64_t>> full_pads(
      const std::vector<int64_t>& pads, const std::optional<std::vector<int64_t>>& axes,
      size_t rank) const;
  PadMode mode_;
  std::optional<std::vector<int64_t>> pads_;
  double value_;
};

PadMode parse_pad_mode(const std::string& text);

}  // namespace kiln::ops
