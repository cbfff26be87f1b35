// MaxRoiPool: for each region [batch_index, x1, y1, x2, y2] (scaled by spatial_scale and
// rounded), the maximum of each of pooled_shape's bins of the region, per channel (Fast R-CNN
// ROI pooling); an empty bin gives 0.
#pragma once

#include "core/op.h"

namespace kiln::ops {

class MaxRoiPool : public Op {
 public:
  MaxRoiPool(int64_t pooled_h, int64_t pooled_w, float spatial_scale)
      : pooled_h_(pooled_h), pooled_w_(pooled_w), spatial_scale_(spatial_scale) {}
  std::string name() const override { return "MaxRoiPool"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const MaxRoiPool& o) {
      return std::tie(o.pooled_h_, o.pooled_w_, o.spatial_scale_);
    });
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
  int64_t pooled_h_, pooled_w_;
  float spatial_scale_;
};

}  // namespace kiln::ops
