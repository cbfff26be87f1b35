// DequantizeLinear: y = (x - zero_point) * scale, per tensor or per axis.
#pragma once

#include "core/op.h"

namespace kiln::ops {

class DequantizeLinear : public Op {
 public:
  explicit DequantizeLinear(int64_t axis = 1) : axis_(axis) {}
  std::string name() const override { return "DequantizeLinear"; }
  int64_t axis() const { return axis_; }
  Attributes attributes() const override { return {{"axis", std::to_string(axis_)}}; }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;

 private:
  int64_t axis_;
};

}  // namespace kiln::ops
