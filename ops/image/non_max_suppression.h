// NonMaxSuppression: per batch and class, greedily selects boxes by decreasing score, dropping
// boxes overlapping a selected one by more than iou_threshold. Output [num_selected, 3] i64
// rows (batch, class, box); the row count depends on the data.
#pragma once

#include "core/op.h"

namespace kiln::ops {

class NonMaxSuppression : public Op {
 public:
  explicit NonMaxSuppression(bool center_point_box) : center_point_box_(center_point_box) {}
  std::string name() const override { return "NonMaxSuppression"; }
  Attributes attributes() const override {
    return {{"center_point_box", center_point_box_ ? "1" : "0"}};
  }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;

 private:
  bool center_point_box_;
};

}  // namespace kiln::ops
