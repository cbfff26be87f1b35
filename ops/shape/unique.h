// Unique: the distinct elements (or, with an axis, the distinct slices along it) of a tensor,
// sorted or in order of first occurrence, with the index of each one's first occurrence, the
// inverse mapping and the counts. The number of distinct values is only known at run time.
#pragma once

#include <optional>

#include "core/op.h"

namespace kiln::ops {

class Unique : public Op {
 public:
  Unique(bool sorted, std::optional<int64_t> axis) : sorted_(sorted), axis_(axis) {}
  std::string name() const override { return "Unique"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  bool sorted_;
  std::optional<int64_t> axis_;
};

}  // namespace kiln::ops
