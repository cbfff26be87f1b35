// EyeLike: a 2D tensor shaped like the input with ones on diagonal k, zeros elsewhere.
#pragma once

#include <optional>

#include "core/op.h"

namespace kiln::ops {

class EyeLike : public Op {
 public:
  EyeLike(std::optional<DatumType> dtype = std::nullopt, int64_t k = 0) : dtype_(dtype), k_(k) {}
  std::string name() const override { return "EyeLike"; }
  Attributes attributes() const override { return {{"k", std::to_string(k_)}}; }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  std::optional<DatumType> dtype_;
  int64_t k_;
};

}  // namespace kiln::ops
