// Flatten: a 2D view [prod(dims before axis), prod(dims from axis)].
#pragma once

#include "core/op.h"

namespace kiln::ops {

class Flatten : public Op {
 public:
  explicit Flatten(int64_t axis = 1) : axis_(axis) {}
  std::string name() const override { return "Flatten"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const Flatten& o) { return std::tie(o.axis_); });
  }
  Attributes attributes() const override { return {{"axis", std::to_string(axis_)}}; }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  size_t axis_for(size_t rank) const;
  int64_t axis_;
};

}  // namespace kiln::ops
