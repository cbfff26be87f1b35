// DeformConv (opsets 19, 22): 2-D deformable convolution (v1 without mask, v2 with mask): each
// kernel tap samples the input bilinearly at its regular position plus a learned offset (per
// output pixel, per offset group of input channels), weighted by the mask; samples outside the
// input are zero. Groups, strides, dilations and pads as in Conv.
#pragma once

#include "core/op.h"

namespace kiln::ops {

struct DeformConvOptions {
  std::vector<int64_t> kernel_shape, strides, dilations, pads;
  int64_t group = 1;
  int64_t offset_group = 1;
  bool operator==(const DeformConvOptions&) const = default;
};

class DeformConv : public Op {
 public:
  explicit DeformConv(DeformConvOptions o) : o_(std::move(o)) {}
  std::string name() const override { return "DeformConv"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const DeformConv& o) { return std::tie(o.o_); });
  }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;

 private:
  DeformConvOptions o_;
};

}  // namespace kiln::ops
