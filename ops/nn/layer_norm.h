// LayerNormalization: normalizes over the trailing dims from `axis`, then applies scale and
// optional bias (both broadcast to the normalized shape). Optional outputs: the mean and the
// inverse standard deviation, of the stash type, with the normalized dims kept as 1.
#pragma once

#include "core/op.h"

namespace kiln::ops {

class LayerNorm : public Op {
 public:
  LayerNorm(int64_t axis, float epsilon, DatumType stash_type)
      : axis_(axis), epsilon_(epsilon), stash_type_(stash_type) {}
  std::string name() const override { return "LayerNormalization"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;
  // f32 with constant scale / bias, known normalized dims and an f32 stash: ops::LayerNormF32.
  OpPtr codegen(const FactRefs& inputs) const override;
  bool is_reference_impl() const override { return true; }
  float epsilon() const { return epsilon_; }

 private:
  int64_t axis_;
  float epsilon_;
  DatumType stash_type_;
};

}  // namespace kiln::ops
