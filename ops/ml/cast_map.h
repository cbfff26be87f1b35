// CastMap (ai.onnx.ml 1): a map(i64, f32 | string) (core/map_value.h) to a [1, K] tensor
// (cast_to TO_FLOAT, TO_INT64 or TO_STRING) of its values in ascending key order. DENSE: K is
// the map's size. SPARSE: K is max_map and element k holds the value of key k, or the pad value
// when the map has no key k (0, or "0.f" for strings, as ONNX Runtime pads); keys at or past
// max_map are left out, a negative key is an error. Floats become strings as C's "%f" would
// write them; strings become numbers only when they are numbers (an error otherwise).
#pragma once

#include "core/op.h"

namespace kiln::ops::ml {

enum class CastMapTo { Float, String, Int64 };

class CastMap : public Op {
 public:
  CastMap(CastMapTo to, bool sparse, int64_t max_map);
  std::string name() const override { return "CastMap"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other,
                       [](const CastMap& o) { return std::tie(o.to_, o.sparse_, o.max_map_); });
  }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;

 private:
  CastMapTo to_;
  bool sparse_;
  int64_t max_map_;
};

}  // namespace kiln::ops::ml
