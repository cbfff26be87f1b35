// CenterCropPad (opset 18): crops or zero-pads each listed axis to the given size, centred: a
// crop starts at floor((in - out) / 2), a pad puts floor((out - in) / 2) before and the rest
// after.
#pragma once

#include <optional>

#include "core/op.h"

namespace kiln::ops {

class CenterCropPad : public Op {
 public:
  explicit CenterCropPad(std::optional<std::vector<int64_t>> axes) : axes_(std::move(axes)) {}
  std::string name() const override { return "CenterCropPad"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const CenterCropPad& o) { return std::tie(o.axes_); });
  }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  // The axes the sizes apply to, normalized, for this rank and this many sizes.
  std::vector<size_t> axes_for(size_t rank, size_t count) const;
  std::optional<std::vector<int64_t>> axes_;
};

}  // namespace kiln::ops
