// ArrayFeatureExtractor (ai.onnx.ml 1): the elements at the given indices of the last axis
// (a 1-D input gives [1, k], as ONNX Runtime does).
#pragma once

#include "core/op.h"

namespace kiln::ops::ml {

class ArrayFeatureExtractor : public Op {
 public:
  std::string name() const override { return "ArrayFeatureExtractor"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const ArrayFeatureExtractor&) { return 0; });
  }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }
};

}  // namespace kiln::ops::ml
