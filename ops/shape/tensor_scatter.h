// TensorScatter (opset 24): a KV-cache update. present = past with, for each batch item b,
// `update`'s sequence positions 0..S written at write_indices[b] + 0..S along `axis` (the
// sequence axis; never 0, the batch axis). Mode "circular" wraps the positions modulo the
// cache length; "linear" requires them inside it.
#pragma once

#include "core/op.h"

namespace kiln::ops {

class TensorScatter : public Op {
 public:
  TensorScatter(int64_t axis, bool circular) : axis_(axis), circular_(circular) {}
  std::string name() const override { return "TensorScatter"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other,
                       [](const TensorScatter& o) { return std::tie(o.axis_, o.circular_); });
  }
  Attributes attributes() const override {
    return {{"axis", std::to_string(axis_)}, {"mode", circular_ ? "circular" : "linear"}};
  }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  int64_t axis_;
  bool circular_;
};

}  // namespace kiln::ops
