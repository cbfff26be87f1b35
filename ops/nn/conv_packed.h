// ConvPacked: an f32 Conv specialised at optimize time (Conv::codegen): weights packed once into
// matrix-multiply panels for this CPU's micro-kernel, bias (and an optional clamp: Relu, Clip)
// fused into the kernel's epilogue. Pointwise convs run as a plain matrix product over the input
// planes, 3x3 stride-1 convs with enough channels as Winograd F(4x4, 3x3) (kernels/conv/
// winograd.h), others pack im2col panels on the fly, depthwise convs use their own kernel. Same
// inputs and outputs as the Conv it replaces (the weight and bias inputs are ignored at run time).
#pragma once

#include <limits>
#include <memory>
#include <vector>

#include "kernels/conv/conv_geometry.h"
#include "kernels/conv/winograd.h"
#include "kernels/mmm/mmm.h"
#include "ops/nn/conv.h"

namespace kiln::ops {

class ConvPacked : public Op {
 public:
  // `reference`: the Conv replaced (for output facts and printing); weights [M, C/group, k...]
  // and bias [M] (may be null) f32 constants.
  // `in_spatial`: the input's spatial dims when the facts know them (null: not known until run
  // time). Known, they decide between Winograd and the matrix product once, so only one form of
  // the weights is kept.
  ConvPacked(std::shared_ptr<const Conv> reference, WindowGeometry geometry, int64_t group,
             const Tensor& weights, const Tensor* bias, const Shape* in_spatial = nullptr);
  std::string name() const override { return "ConvPacked"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;

  // A copy whose outputs are clamped to [min, max] (a fused Relu / Clip); min/max combine with
  // an existing clamp.
  std::shared_ptr<ConvPacked> with_clamp(float min, float max) const;
  // A copy that adds node input `input` (a tensor of the output's shape: a residual) in the
  // kernel's epilogue, before the clamp (so only on a copy without one; not depthwise).
  std::shared_ptr<ConvPacked> with_residual(size_t input) const;
  bool depthwise() const { return depthwise_; }
  bool clamped() const;
  bool has_residual() const { return residual_input_ >= 0; }
  int64_t out_channels() const { return out_channels_; }
  // Whether 2-D 3x3 stride-1 runs go through Winograd F(4x4, 3x3) (weights transformed at
  // construction; kernels::winograd_pays still checks each run's geometry).
  bool winograd() const { return winograd_ != nullptr; }
  // Whether it holds the weights packed for the matrix product (im2col / in place / 1x1).
  bool matmul_weights() const { return !packed_.empty(); }

  // The pieces of eval, for ops that place several convs' outputs in one tensor (ConcatConvs):
  // checks input x, fills out_shape (uses ctx's temp shapes 0 to 2) and returns the geometry...
  kernels::ConvGeometry output_geometry(EvalContext& ctx, const Tensor& x, Shape& out_shape) const;
  // ...then computes into y: image n's channel c plane at y + n * y_batch_stride + c * plane.
  void compute(const TensorRefs& inputs, const kernels::ConvGeometry& geo, const Shape& out_shape,
               float* y, int64_t y_batch_stride) const;

 private:
  std::shared_ptr<const Conv> reference_;
  WindowGeometry geo_;  // completed for the weights' rank
  int64_t group_;
  int64_t out_channels_, in_channels_per_group_, kernel_size_;
  const kernels::MicroKernel* kernel_;
  bool depthwise_ = false;
  std::vector<std::shared_ptr<const kernels::PackedMatrix>> packed_;  // one per group
  std::shared_ptr<const std::vector<float>> weights_;                 // depthwise: raw taps
  std::shared_ptr<const std::vector<float>> bias_;                    // empty: none
  std::shared_ptr<const kernels::WinogradWeights> winograd_;          // null: no Winograd
  float min_ = -std::numeric_limits<float>::infinity();
  float max_ = std::numeric_limits<float>::infinity();
  long residual_input_ = -1;  // node input added in the epilogue, -1: none
};

}  // namespace kiln::ops
