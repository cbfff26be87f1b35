// Trilu: keeps the upper (or lower) triangle of the last two dims, shifted by diagonal k.
#pragma once

#include "core/op.h"

namespace kiln::ops {

class Trilu : public Op {
 public:
  explicit Trilu(bool upper = true) : upper_(upper) {}
  std::string name() const override { return "Trilu"; }
  Attributes attributes() const override { return {{"upper", upper_ ? "1" : "0"}}; }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  bool upper_;
};

}  // namespace kiln::ops
