// Compress: keeps the slices along an axis (or elements of the flattened input) where a
// boolean condition is true. The output length depends on the condition's values.
#pragma once

#include <optional>

#include "core/op.h"

namespace kiln::ops {

class Compress : public Op {
 public:
  explicit Compress(std::optional<int64_t> axis = std::nullopt) : axis_(axis) {}
  std::string name() const override { return "Compress"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  std::optional<int64_t> axis_;
};

}  // namespace kiln::ops
