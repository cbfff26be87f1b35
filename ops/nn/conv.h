// Conv: N-D convolution (1 to 3 spatial dims) with groups, strides, dilations and padding.
// Reference kernel: im2col into a scratch buffer, then a matrix product per group.
#pragma once

#include "core/op.h"
#include "ops/nn/pool_geometry.h"

namespace kiln::ops {

class Conv : public Op {
 public:
  Conv(WindowGeometry geometry, int64_t group) : geo_(std::move(geometry)), group_(group) {}
  int64_t group() const { return group_; }
  const WindowGeometry& geometry() const { return geo_; }
  std::string name() const override { return "Conv"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;
  // f32 with constant weights (and bias): a ConvPacked (ops/nn/conv_packed.h).
  OpPtr codegen(const FactRefs& inputs) const override;
  bool is_reference_impl() const override { return true; }

 private:
  WindowGeometry geo_;
  int64_t group_;
};

// The kernel's spatial dims from a weight fact [M, C/group, k...] (must be concrete).
std::vector<int64_t> weight_kernel_dims(const Fact& w, const std::string& op);

}  // namespace kiln::ops
