// TopK: the k largest (or smallest) elements along an axis and their indices (i64). k comes
// from input 1 (a one-element i64 tensor) or, for the opset < 10 form, from the constructor.
// Ties keep the lower index first. Output is always sorted (allowed when sorted=0).
#pragma once

#include <optional>

#include "core/op.h"

namespace kiln::ops {

class TopK : public Op {
 public:
  TopK(int64_t axis, bool largest, bool sorted, std::optional<int64_t> k = std::nullopt)
      : axis_(axis), largest_(largest), sorted_(sorted), k_(k) {}
  std::string name() const override { return "TopK"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  int64_t axis_;
  bool largest_;
  bool sorted_;
  std::optional<int64_t> k_;
};

}  // namespace kiln::ops
