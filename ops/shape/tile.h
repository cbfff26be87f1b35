// Tile: repeats the input along each axis.
#pragma once

#include "core/op.h"

namespace kiln::ops {

class Tile : public Op {
 public:
  std::string name() const override { return "Tile"; }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }
};

}  // namespace kiln::ops
