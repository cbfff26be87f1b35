// DictVectorizer (ai.onnx.ml 1): a map (core/map_value.h) to a [1, V] tensor of its value type,
// V the vocabulary's length (int64_vocabulary or string_vocabulary, of the map's key type):
// element i is the map's value at vocabulary[i], or zero (the empty string for strings) when
// the map has no such key. Keys of the map not in the vocabulary are ignored, as ONNX Runtime
// does.
#pragma once

#include "ops/ml/ml_common.h"

namespace kiln::ops::ml {

class DictVectorizer : public Op {
 public:
  explicit DictVectorizer(Labels vocabulary);
  std::string name() const override { return "DictVectorizer"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const DictVectorizer& o) { return std::tie(o.vocab_); });
  }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;

 private:
  Labels vocab_;
};

}  // namespace kiln::ops::ml
