// Bernoulli: each output element is 1 with the probability the input holds at its place, else
// 0, of `dtype` (default: the input's type). Seeded draws repeat from evaluation to
// evaluation (see RandomTensor).
#pragma once

#include <optional>

#include "core/op.h"

namespace kiln::ops {

class Bernoulli : public Op {
 public:
  Bernoulli(std::optional<DatumType> dtype, std::optional<float> seed)
      : dtype_(dtype), seed_(seed) {}
  std::string name() const override { return "Bernoulli"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }
  bool is_deterministic() const override { return false; }

 private:
  std::optional<DatumType> dtype_;
  std::optional<float> seed_;
};

}  // namespace kiln::ops
