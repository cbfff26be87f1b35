// FeatureVectorizer (ai.onnx.ml 1): the inputs' columns side by side as floats, input i
// contributing inputdimensions[i] columns (zero-padded or cut).
#pragma once

#include "core/op.h"

namespace kiln::ops::ml {

class FeatureVectorizer : public Op {
 public:
  explicit FeatureVectorizer(std::vector<int64_t> dims) : dims_(std::move(dims)) {}
  std::string name() const override { return "FeatureVectorizer"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const FeatureVectorizer& o) { return std::tie(o.dims_); });
  }
  Attributes attributes() const override { return {{"inputdimensions", ints_to_string(dims_)}}; }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  std::vector<int64_t> dims_;
};

}  // namespace kiln::ops::ml
