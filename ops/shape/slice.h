// Slice: starts/ends/axes/steps, as attributes (before opset 10) or as inputs 1..4. Negative
// indices count from the end, out-of-range ones clamp, negative steps walk backwards.
#pragma once

#include <optional>

#include "core/op.h"

namespace kiln::ops {

struct SliceAxis {
  int64_t start = 0;  // first index read
  int64_t step = 1;
  int64_t len = 0;  // elements in the output
};

// Resolves one axis of extent `dim` (ONNX clamping rules).
SliceAxis resolve_slice(int64_t dim, int64_t start, int64_t end, int64_t step);

class Slice : public Op {
 public:
  // Attribute form (opset < 10); starts and ends both set or both absent.
  Slice(std::optional<std::vector<int64_t>> starts = std::nullopt,
        std::optional<std::vector<int64_t>> ends = std::nullopt,
        std::optional<std::vector<int64_t>> axes = std::nullopt)
      : starts_(std::move(starts)), ends_(std::move(ends)), axes_(std::move(axes)) {}
  std::string name() const override { return "Slice"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other,
                       [](const Slice& o) { return std::tie(o.starts_, o.ends_, o.axes_); });
  }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  struct Params {
    std::vector<int64_t> starts, ends, axes, steps;
  };
  // From attributes, or from known values of the inputs (nullopt when some are unknown).
  std::optional<Params> params(const std::vector<std::optional<std::vector<int64_t>>>& in,
                               size_t rank) const;
  std::optional<std::vector<int64_t>> starts_, ends_, axes_;
};

}  // namespace kiln::ops
