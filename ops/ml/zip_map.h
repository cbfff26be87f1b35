// ZipMap (ai.onnx.ml 1): each row of a float [N, C] (or the one row of [C]) becomes a map from
// the C class labels (classlabels_strings or classlabels_int64s) to the row's values; the output
// is a sequence of N maps, seq(map(string, f32)) or seq(map(i64, f32)) (core/map_value.h).
#pragma once

#include "ops/ml/ml_common.h"

namespace kiln::ops::ml {

class ZipMap : public Op {
 public:
  explicit ZipMap(Labels labels);
  std::string name() const override { return "ZipMap"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const ZipMap& o) { return std::tie(o.labels_); });
  }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;

 private:
  Labels labels_;
  Tensor keys_;  // the labels as a 1-D tensor, the keys of every map
};

}  // namespace kiln::ops::ml
