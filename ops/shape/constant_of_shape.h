// ConstantOfShape: a tensor of the given shape filled with one value (default f32 zero).
#pragma once

#include "core/op.h"

namespace kiln::ops {

class ConstantOfShape : public Op {
 public:
  // `value` holds one element; a null tensor means f32 0.
  explicit ConstantOfShape(Tensor value = Tensor());
  std::string name() const override { return "ConstantOfShape"; }
  Attributes attributes() const override { return {{"value", value_.to_string()}}; }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  Tensor value_;
};

}  // namespace kiln::ops
