// ConvPacked: an f32 Conv specialised at optimize time (Conv::codegen): the weights prepared once
// by kernels::ConvKernel (packed matrix-multiply panels, Winograd filters, depthwise taps), bias
// and any fused output steps (ops/core/output_steps.h: clamp, residual, activations, binary ops)
// applied by the kernel's epilogue. The path for each input geometry comes from a ConvPlan: made
// once at optimize time when the input's spatial dims are known, else once per geometry a session
// meets (kept in its op state). Same inputs as the Conv it replaces (the weight and bias inputs
// are ignored at run time), then the operands of its output steps.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "kernels/conv/conv_plan.h"
#include "ops/core/output_steps.h"
#include "ops/nn/conv.h"

namespace kiln::ops {

class ConvPacked : public Op, public FusableProducer {
 public:
  // `reference`: the Conv replaced (for output facts and printing); weights [M, C/group, k...]
  // and bias [M] (may be null) f32 constants. `in_spatial`: the input's spatial dims when the
  // facts know them (null: not known until run time); known, they fix the plan now.
  ConvPacked(std::shared_ptr<const Conv> reference, WindowGeometry geometry, int64_t group,
             const Tensor& weights, const Tensor* bias, const Shape* in_spatial = nullptr);
  std::string name() const override { return "ConvPacked"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;
  std::unique_ptr<OpState> make_state(const FactRefs& inputs) const override;
  OpPtr with_output_step(const OutputStep& step, const FactRefs& inputs,
                         const Fact* operand) const override;

  bool depthwise() const { return kernel_->depthwise(); }
  int64_t out_channels() const { return kernel_->out_channels(); }
  const OutputSteps& output_steps() const { return steps_; }
  // Whether 2-D 3x3 stride-1 runs may go through Winograd F(4x4, 3x3).
  bool winograd() const { return kernel_->has_winograd(); }
  // Whether it holds the weights packed for the matrix product (im2col / in place / 1x1).
  bool matmul_weights() const { return kernel_->has_matmul_weights(); }
  // The plan fixed at optimize time (null: planned per geometry at run time).
  const kernels::ConvPlan* fixed_plan() const { return fixed_plan_ ? &*fixed_plan_ : nullptr; }

  // The pieces of eval, for ops that place several convs' outputs in one tensor (ConcatConvs):
  // checks input x, fills out_shape (uses ctx's temp shapes 0 to 2) and returns the plan for its
  // geometry (from `plans`, this op's state)...
  const kernels::ConvPlan& plan_for(EvalContext& ctx, OpState& plans, const Tensor& x,
                                    Shape& out_shape) const;
  // ...then computes into y: image n's channel c plane at y + n * y_batch_stride + c * plane.
  // `out_shape`: this conv's own output shape (for the output steps' operands).
  void compute(EvalContext& ctx, const TensorRefs& inputs, const kernels::ConvPlan& plan,
               const Shape& out_shape, float* y, int64_t y_batch_stride) const;

 private:
  std::shared_ptr<const Conv> reference_;
  WindowGeometry geo_;  // completed for the weights' rank
  std::shared_ptr<const kernels::ConvKernel> kernel_;
  std::shared_ptr<const std::vector<float>> bias_;  // empty: none
  std::optional<kernels::ConvPlan> fixed_plan_;
  OutputSteps steps_;
};

}  // namespace kiln::ops
