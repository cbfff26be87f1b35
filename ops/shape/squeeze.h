// Squeeze / Unsqueeze: views removing or inserting dims of size 1. Axes come from the attribute
// (before opset 13) or from the second input (constant or with known values).
#pragma once

#include <optional>

#include "core/op.h"

namespace kiln::ops {

class Squeeze : public Op {
 public:
  explicit Squeeze(std::optional<std::vector<int64_t>> axes = std::nullopt)
      : axes_(std::move(axes)) {}
  std::string name() const override { return "Squeeze"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const Squeeze& o) { return std::tie(o.axes_); });
  }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  std::optional<std::vector<int64_t>> axes_;
};

class Unsqueeze : public Op {
 public:
  explicit Unsqueeze(std::optional<std::vector<int64_t>> axes = std::nullopt)
      : axes_(std::move(axes)) {}
  std::string name() const override { return "Unsqueeze"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const Unsqueeze& o) { return std::tie(o.axes_); });
  }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  std::optional<std::vector<int64_t>> axes_;
};

}  // namespace kiln::ops
