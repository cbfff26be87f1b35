// ConvTransposePacked: an f32 ConvTranspose with constant weights specialised at optimize time
// (ConvTranspose::codegen). Per batch item and group, one packed matrix product gives every
// (output channel x kernel offset, input position) value: A = the group's weights transposed
// ([M/g x kernel, C/g], packed once), B = the group's input planes [C/g, positions] read in
// place; then kernels/conv/col2im scatters its rows onto the output planes, from the bias.
#pragma once

#include <memory>
#include <vector>

#include "kernels/mmm/mmm.h"
#include "ops/nn/conv_transpose.h"

namespace kiln::ops {

class ConvTransposePacked : public Op {
 public:
  // w [C, M/g, k...] f32, bias [M] or null.
  ConvTransposePacked(std::shared_ptr<const ConvTranspose> reference, const Tensor& w,
                      const Tensor* bias);
  std::string name() const override { return "ConvTransposePacked"; }
  Attributes attributes() const override { return reference_->attributes(); }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override {
    return reference_->output_facts(inputs);
  }
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override { return reference_->cost(inputs); }

 private:
  std::shared_ptr<const ConvTranspose> reference_;
  const kernels::MicroKernel* kernel_;
  Shape w_shape_;
  std::vector<std::shared_ptr<const kernels::PackedMatrix>> groups_;  // A per group
  std::vector<float> bias_;                                           // empty: none
};

}  // namespace kiln::ops
