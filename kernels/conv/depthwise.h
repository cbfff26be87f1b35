// Depthwise convolution (one filter per channel: group == channels, multiplier 1) on NC(D)HW
// buffers, with bias and a min/max clamp fused. Vectorized per ISA (same source compiled with
// each ISA's flags), dispatched on kernels::active_isa().
#pragma once

#include <limits>

#include "kernels/conv/conv_geometry.h"
#include "kernels/mmm/mmm.h"

namespace kiln::kernels {

struct DepthwiseArgs {
  const float* x = nullptr;     // channels planes of geo.in
  const float* w = nullptr;     // channels x geo.kernel_size() taps
  const float* bias = nullptr;  // channels values, or null
  float* y = nullptr;           // channels planes of geo.out
  int64_t channels = 0;
  ConvGeometry geo;
  float min = -std::numeric_limits<float>::infinity();
  float max = std::numeric_limits<float>::infinity();
  // depthwise_scratch_floats(geo, isa) floats the call may use (callers that split channels
  // over threads lend each chunk a slice of their own), or null: the call then allocates its
  // own (tests, benchmarks; ops lend their session's scratch, so steady-state runs allocate
  // nothing).
  float* scratch = nullptr;
};

// Floats of scratch one depthwise_conv_f32 call with this geometry needs under `isa`.
int64_t depthwise_scratch_floats(const ConvGeometry& geo, Isa isa);

// Channels the small-plane path computes at a time under `isa` (its vector width). Results do
// not depend on how callers split the channels, but a split on multiples of this never computes
// a block twice.
int64_t depthwise_channel_block(Isa isa);

// Computes channels [c0, c1) of one image. Bitwise identical however [0, channels) is split into
// calls.
void depthwise_conv_f32(const DepthwiseArgs& args, int64_t c0, int64_t c1, Isa isa);

// Per-ISA bodies (kernels/conv/depthwise_impl.h compiled for each).
void depthwise_conv_f32_generic(const DepthwiseArgs& args, int64_t c0, int64_t c1);
int64_t depthwise_scratch_floats_generic(const ConvGeometry& geo);
#if defined(__x86_64__)
void depthwise_conv_f32_avx2(const DepthwiseArgs& args, int64_t c0, int64_t c1);
void depthwise_conv_f32_avx512(const DepthwiseArgs& args, int64_t c0, int64_t c1);
int64_t depthwise_scratch_floats_avx2(const ConvGeometry& geo);
int64_t depthwise_scratch_floats_avx512(const ConvGeometry& geo);
#endif
#if defined(__aarch64__) || defined(__arm__)
void depthwise_conv_f32_neon(const DepthwiseArgs& args, int64_t c0, int64_t c1);
int64_t depthwise_scratch_floats_neon(const ConvGeometry& geo);
#endif

}  // namespace kiln::kernels
