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
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  std::optional<std::vector<int64_t>> axes_;
};

}  // namespace kiln::ops
