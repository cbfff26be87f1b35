// AffineGrid (opset 20): the sampling grid of an affine transform for GridSample. theta
// [N, 2, 3] (2-D) or [N, 3, 4] (3-D) maps the normalized output coordinates (x, y[, z], 1) of a
// size [N, C, H, W] / [N, C, D, H, W] image to input coordinates: the grid [N, H, W, 2] /
// [N, D, H, W, 3] holds (x, y[, z]). align_corners puts -1 and 1 on the corner pixels' centres
// rather than on their outer edges.
#pragma once

#include "core/op.h"

namespace kiln::ops {

class AffineGrid : public Op {
 public:
  explicit AffineGrid(bool align_corners) : align_corners_(align_corners) {}
  std::string name() const override { return "AffineGrid"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other,
                       [](const AffineGrid& o) { return std::tie(o.align_corners_); });
  }
  Attributes attributes() const override { return {{"align_corners", align_corners_ ? "1" : "0"}}; }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  bool align_corners_;
};

}  // namespace kiln::ops
