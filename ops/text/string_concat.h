// StringConcat (opset 20): element-wise concatenation of two string tensors, broadcasting.
#pragma once

#include "core/op.h"

namespace kiln::ops {

class StringConcat : public Op {
 public:
  std::string name() const override { return "StringConcat"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const StringConcat&) { return 0; });
  }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }
};

}  // namespace kiln::ops
