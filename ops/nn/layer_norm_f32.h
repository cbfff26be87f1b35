// LayerNormF32: f32 LayerNormalization with constant scale and bias, put in place by
// LayerNorm::codegen: scale and bias expanded once to the normalized length, rows normalized by
// kernels/norm (float statistics, errors stated there), rows split across threads when large.
// The optional mean / inverse-std outputs (f32 stash type) are written too.
#pragma once

#include <memory>
#include <vector>

#include "core/op.h"
#include "ops/nn/layer_norm.h"

namespace kiln::ops {

class LayerNormF32 : public Op {
 public:
  // `axis`: first normalized axis (normalized); scale / bias: constants broadcasting to the
  // normalized dims `normalized` (bias may be null).
  LayerNormF32(std::shared_ptr<const LayerNorm> reference, size_t axis, const Shape& normalized,
               const Tensor& scale, const Tensor* bias);
  std::string name() const override { return "LayerNormF32"; }
  Attributes attributes() const override { return reference_->attributes(); }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override {
    return reference_->output_facts(inputs);
  }
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override { return reference_->cost(inputs); }

 private:
  std::shared_ptr<const LayerNorm> reference_;
  size_t axis_;
  float epsilon_;
  std::vector<float> gamma_, beta_;  // normalized length; beta_ empty: no bias
};

}  // namespace kiln::ops
