// Reduce*: the ONNX reductions (ReduceSum, ReduceMean, ReduceMax...) over a set of axes, driven
// by an enum. Axes come from the constructor (attribute form) or from an optional second input.
#pragma once

#include <optional>

#include "core/op.h"

namespace kiln::ops {

enum class ReduceKind { Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp, SumSquare };

std::string reduce_kind_name(ReduceKind kind);

class Reduce : public Op {
 public:
  // `axes`: the attribute axes, or nullopt to read them from input 1 (absent: all axes, or no
  // reduction at all when noop_with_empty_axes is set).
  Reduce(ReduceKind kind, std::optional<std::vector<int64_t>> axes, bool keepdims,
         bool noop_with_empty_axes = false)
      : kind_(kind), axes_(std::move(axes)), keepdims_(keepdims), noop_(noop_with_empty_axes) {}

  std::string name() const override { return reduce_kind_name(kind_); }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const Reduce& o) {
      return std::tie(o.kind_, o.axes_, o.keepdims_, o.noop_);
    });
  }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;

  ReduceKind kind() const { return kind_; }

 private:
  // The sorted, normalized reduced axes; nullopt means "no reduction" (noop_with_empty_axes).
  std::optional<std::vector<size_t>> resolve_axes(const std::optional<std::vector<int64_t>>& axes,
                                                  size_t rank) const;

  ReduceKind kind_;
  std::optional<std::vector<int64_t>> axes_;
  bool keepdims_;
  bool noop_;
};

}  // namespace kiln::ops
