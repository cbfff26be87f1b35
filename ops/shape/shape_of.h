// Shape and Size: the input's dims (optionally a [start, end) range of them) and element count,
// as i64 tensors. Their facts carry the dims symbolically, so later shape arithmetic stays exact.
#pragma once

#include <optional>

#include "core/op.h"

namespace kiln::ops {

class ShapeOf : public Op {
 public:
  explicit ShapeOf(int64_t start = 0, std::optional<int64_t> end = std::nullopt)
      : start_(start), end_(end) {}
  std::string name() const override { return "Shape"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const ShapeOf& o) { return std::tie(o.start_, o.end_); });
  }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  std::pair<size_t, size_t> range(size_t rank) const;
  int64_t start_;
  std::optional<int64_t> end_;
};

class Size : public Op {
 public:
  std::string name() const override { return "Size"; }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }
};

}  // namespace kiln::ops
