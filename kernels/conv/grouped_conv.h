// Grouped convolution (1 < group < channels, few channels per group: RegNet, ResNeXt,
// ShuffleNet-v1) computed directly, all groups in one pass, without im2col panels. Vectorized
// per ISA (one source, kernels/conv/grouped_conv_impl.h, compiled with each ISA's flags).
//
// The input is copied, one group at a time, into zero-padded polyphase planes (stride (sy, sx):
// sy * sx planes per channel, padded pixel (py, px) in plane (py % sy, px % sx) at
// [(py / sy) * pw + px / sx]), so every tap of every output reads one plane at a fixed offset
// from the output's flat index q = oy * pw + ox, whatever the stride and dilation. The group's
// tiles run right after its planes are written, while they are in cache (each thread pads the
// groups of its items into its own slot: a group split between two threads is padded twice). Each
// output row is cut into vectors (the last one partial when the row is not a whole number of
// vectors); a tile is R output channels of one group by up to 3 consecutive vectors, summed in
// registers over the group's channels and taps (the weights broadcast, the input loaded unaligned).
// The sums go through the fused epilogue's register stage (same code as the micro-kernels,
// kernels/epilogue_impl.h) straight into the output, a partial vector under its lane count, then
// the post steps.
//
// Every output is one sum in a fixed order (channels, then taps), so results do not depend on
// how the items are split between threads.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/conv/conv_geometry.h"
#include "kernels/mmm/mmm.h"

namespace kiln::kernels {

// Whether the direct kernel runs `geo`: 2-D (depth 1), no negative padding, at most
// kGroupedConvMaxTaps taps.
constexpr int64_t kGroupedConvMaxTaps = 64;
bool grouped_conv_supported(const ConvGeometry& geo);

// The layout of one run: polyphase planes, tiles, items (group x tile x row block).
struct GroupedConvLayout {
  int64_t sy = 1, sx = 1, ph = 0, pw = 0;
  int64_t plane = 0;           // floats per phase plane
  int64_t channel_stride = 0;  // floats per channel (sy * sx planes)
  int64_t group_floats = 0;    // one group's padded planes, and slack for whole vectors
  int64_t lanes = 0;           // floats per vector of the ISA
  int64_t row_vectors = 0;     // vectors per output row (the last one partial when ow % lanes)
  int64_t vectors = 0;         // vectors per output plane (out rows x row_vectors)
  int64_t tiles = 0;           // tiles per group (2 or 3 vectors each, as even as they go)
  int64_t rows = 0;            // output channels per full row block
  int64_t row_blocks = 0;      // row blocks per group
  int64_t items = 0;           // groups x tiles x row blocks
};
GroupedConvLayout grouped_conv_layout(int64_t group, int64_t channels_per_group,
                                      int64_t outputs_per_group, const ConvGeometry& geo, Isa isa);

// The weights of a grouped conv [M, C/group, k...] reordered for the kernel: per group, per
// (channel, tap) step, its M/group output channels' taps side by side.
std::vector<float> grouped_conv_weights(const float* w, int64_t out_channels, int64_t group,
                                        int64_t in_per_group, int64_t kernel_size);

struct GroupedConvArgs {
  const float* x = nullptr;  // channels planes of geo.in
  const float* w = nullptr;  // grouped_conv_weights()
  int64_t group = 1, in_per_group = 1, out_per_group = 1;
  ConvGeometry geo;
  const Epilogue* ep = nullptr;  // row operands per output channel, residual / col over the plane
  float* y = nullptr;            // out channels planes of geo.out
};

// Items [i0, i1), group by group: each group's planes padded into `slot` (layout.group_floats
// floats), then its items computed from there. `padded`: the group whose planes the slot holds
// (-1: none), kept from call to call (a thread's share of a parallel_for comes in several
// pieces, often of one group: padded once, not once per piece).
void grouped_conv_run(const GroupedConvArgs& a, const GroupedConvLayout& l, int64_t i0, int64_t i1,
                      float* slot, int64_t& padded, Isa isa);
// Fills the padded planes of group `grp` (and the slack after them) at `planes`.
void grouped_conv_pad(const GroupedConvArgs& a, const GroupedConvLayout& l, int64_t grp,
                      float* planes);

// Per-ISA bodies: items [i0, i1) of one group, whose padded planes are at `planes`.
void grouped_conv_items_generic(const GroupedConvArgs& a, const GroupedConvLayout& l, int64_t i0,
                                int64_t i1, const float* planes);
#if defined(__x86_64__)
void grouped_conv_items_avx2(const GroupedConvArgs& a, const GroupedConvLayout& l, int64_t i0,
                             int64_t i1, const float* planes);
void grouped_conv_items_avx512(const GroupedConvArgs& a, const GroupedConvLayout& l, int64_t i0,
                               int64_t i1, const float* planes);
#endif

}  // namespace kiln::kernels
