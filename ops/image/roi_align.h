// RoiAlign: pools each region of interest of X [N, C, H, W] into [C, out_h, out_w] by
// averaging (or taking the max of) bilinear samples on a regular grid in each bin.
#pragma once

#include "core/op.h"

namespace kiln::ops {

class RoiAlign : public Op {
 public:
  struct Options {
    bool max_mode = false;
    int64_t output_height = 1, output_width = 1;
    int64_t sampling_ratio = 0;  // 0: adaptive, ceil(roi size / output size)
    float spatial_scale = 1.f;
    bool half_pixel = true;  // false: "output_half_pixel", the opset-10 behaviour
  };
  explicit RoiAlign(Options options) : o_(options) {}
  std::string name() const override { return "RoiAlign"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;

 private:
  Options o_;
};

}  // namespace kiln::ops
