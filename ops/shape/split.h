// Split: cuts a tensor along an axis into parts of given sizes, or into equal parts (the last
// one smaller when the axis does not divide evenly).
#pragma once

#include <optional>

#include "core/op.h"

namespace kiln::ops {

class Split : public Op {
 public:
  // `split` from the attribute (before opset 13); otherwise from input 1 when present.
  Split(int64_t axis, size_t num_outputs, std::optional<std::vector<int64_t>> split = std::nullopt)
      : axis_(axis), num_outputs_(num_outputs), split_(std::move(split)) {}
  std::string name() const override { return "Split"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  std::vector<Dim> sizes(const Dim& dim, const std::optional<std::vector<int64_t>>& split) const;
  int64_t axis_;
  size_t num_outputs_;
  std::optional<std::vector<int64_t>> split_;
};

}  // namespace kiln::ops
