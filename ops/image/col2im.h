// Col2Im (opset 18): the inverse of im2col. Input [N, C * prod(block_shape), L] holds, for each
// of the L sliding-block positions over the padded image, the block's values channel by
// channel; the output [N, C, image_shape...] sums every value into its pixel (padding dropped).
// N-D, with strides, dilations and pads (begins then ends).
#pragma once

#include "core/op.h"

namespace kiln::ops {

class Col2Im : public Op {
 public:
  Col2Im(std::vector<int64_t> dilations, std::vector<int64_t> pads, std::vector<int64_t> strides)
      : dilations_(std::move(dilations)), pads_(std::move(pads)), strides_(std::move(strides)) {}
  std::string name() const override { return "Col2Im"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other,
                       [](const Col2Im& o) { return std::tie(o.dilations_, o.pads_, o.strides_); });
  }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override {
    Cost c;
    c.other = required(inputs, 0, name()).volume();
    return c;
  }

 private:
  // Per spatial axis, the attribute's value (or its default) for `n` axes.
  std::vector<int64_t> geometry(const std::vector<int64_t>& v, size_t n, int64_t dflt) const;
  std::vector<int64_t> dilations_, pads_, strides_;
};

}  // namespace kiln::ops
