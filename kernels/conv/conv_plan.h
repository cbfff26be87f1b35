// An f32 convolution with constant weights, as kernels run it: the weights prepared once in the
// forms its paths need (ConvKernel), and for each input geometry a plan (ConvPlan) that picks the
// path, the threads and the scratch the caller lends. The choice between paths is made here, once
// per geometry, never per run: an op makes the plan when the input shape is known (optimize time,
// or the first run after a symbolic dim binds) and keeps it.
//
// Paths (ConvPath), one image at a time, per group:
//   depthwise       one filter per channel (kernels/conv/depthwise.h), channels split on threads
//   grouped         1 < group < channels with few output channels per group: every group in one
//                   pass, sums in registers (kernels/conv/grouped_conv.h)
//   winograd        2-D 3x3 stride 1, enough channels: F(4x4, 3x3) (kernels/conv/winograd.h)
//   pointwise       1x1: the input planes are the B operand, packed per run (mmm)
//   pointwise_in_place  1x1 with few output channels: B read in place (mmm_in_place)
//   in_place        2-D stride-1-along-x whose output rows fill the tiles: B read from the padded
//                   planes in place (conv_in_place)
//   im2col          anything else: im2col panels packed per run (mmm + Im2colSource)
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/conv/conv_geometry.h"
#include "kernels/conv/grouped_conv.h"
#include "kernels/conv/winograd.h"
#include "kernels/mmm/mmm.h"

namespace kiln::kernels {

enum class ConvPath : uint8_t {
  Depthwise,
  Grouped,
  Winograd,
  Pointwise,
  PointwiseInPlace,
  InPlace,
  Im2col
};
const char* conv_path_name(ConvPath path);

// The plan of one convolution for one input geometry and thread count.
struct ConvPlan {
  ConvPath path = ConvPath::Im2col;
  ConvGeometry geo;
  int for_threads = 1;  // the thread count it was made for
  int threads = 1;      // the threads it uses (fewer for small work)
  MmmPlan mmm;          // pointwise and im2col: the product of one group
  // Scratch, in floats from the lent pointer (pieces 64-byte aligned): the padded input planes
  // (im2col, in place, Winograd), int64 offsets (in place), the product's or Winograd's own.
  size_t padded_at = 0, offsets_at = 0, kernel_at = 0;
  // Depthwise: floats per thread slot, threads, channel blocks per piece.
  size_t per_slot = 0;
  int64_t grain = 1;
  // Grouped: the layout of the padded planes and the items (the planes at padded_at, one tile
  // per thread slot from kernel_at, per_slot floats each; grain: items per piece).
  GroupedConvLayout grouped;
  size_t scratch_floats = 0;
};

class ConvKernel {
 public:
  // weights [M, C/group, k...] f32 (rank 3 to 5). `known`: the input geometry when it is known
  // ahead (then only the weights its path needs are kept; a run on another geometry whose path
  // would need the others is an error). Weights go to the micro-kernel of `isa`.
  ConvKernel(const float* weights, const std::vector<int64_t>& weights_shape, int64_t group,
             Isa isa, const ConvGeometry* known = nullptr);

  // The plan for this geometry on `threads` threads (<= 0: kiln::num_threads()).
  ConvPlan plan(const ConvGeometry& geo, int threads = 0) const;

  // y (out_channels() planes of plan.geo.out) = epilogue(conv(x)) for one image x (channels()
  // planes of plan.geo.in). ep's row operands (row_bias, row_scale) are per output channel and its
  // residual covers the image's output (residual_ld: the plane size); col operands are not
  // supported. `scratch`: plan.scratch_floats floats, 64-byte aligned. Results do not depend on
  // the thread count.
  void run(const ConvPlan& plan, const float* x, const Epilogue& ep, float* y,
           float* scratch) const;

  int64_t group() const { return group_; }
  int64_t out_channels() const { return out_channels_; }
  int64_t channels() const { return in_per_group_ * group_; }
  int64_t in_channels_per_group() const { return in_per_group_; }
  bool depthwise() const { return depthwise_; }
  bool has_winograd() const { return winograd_ != nullptr; }
  bool has_matmul_weights() const { return !packed_.empty(); }
  bool has_grouped_weights() const { return !grouped_w_.empty(); }
  const MicroKernel& micro_kernel() const { return *kernel_; }
  // What `dump` prints: "depthwise", "grouped_direct", "winograd_f43/<micro-kernel>" or the
  // micro-kernel's name.
  std::string description() const;
  // Bytes of prepared weights held.
  size_t weight_bytes() const;

 private:
  const MicroKernel* kernel_;
  Isa isa_;
  int64_t group_, out_channels_, in_per_group_, kernel_size_;
  bool depthwise_ = false;
  std::vector<std::shared_ptr<const PackedMatrix>> packed_;  // one per group
  std::vector<float> taps_;                                  // depthwise: raw taps
  std::vector<float> grouped_w_;  // grouped: grouped_conv_weights() (empty: no grouped path)
  std::shared_ptr<const WinogradWeights> winograd_;  // null: no Winograd
};

}  // namespace kiln::kernels
