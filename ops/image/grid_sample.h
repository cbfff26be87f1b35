// GridSample: samples X [N, C, D1, ..., Dr] at the normalized (x, y, z...) locations of grid
// [N, O1, ..., Or, r] (nearest / n-linear / n-cubic; zeros / border / reflection padding), like
// PyTorch's grid_sample which defines the ONNX semantics (N-D since opset 20).
#pragma once

#include <string>

#include "core/op.h"

namespace kiln::ops {

class GridSample : public Op {
 public:
  enum class Mode { Nearest, Linear, Cubic };
  enum class Padding { Zeros, Border, Reflection };
  GridSample(Mode mode, Padding padding, bool align_corners)
      : mode_(mode), padding_(padding), align_corners_(align_corners) {}
  static Mode parse_mode(const std::string& s);
  static Padding parse_padding(const std::string& s);
  std::string name() const override { return "GridSample"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;

 private:
  Mode mode_;
  Padding padding_;
  bool align_corners_;
};

}  // namespace kiln::ops
