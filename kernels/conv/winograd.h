// Winograd convolution F(2x2, 3x3) and F(4x4, 3x3): 2-D, 3x3 kernel, stride 1, dilation 1, one
// group.
//
// Each t x t block ("tile") of the output (t = 2 or 4) is computed from the (t+2) x (t+2) input
// patch d around it as Y = Aᵀ [ (G g Gᵀ) ⊙ (Bᵀ d B) ] A, so a tile costs (t+2)² multiply-adds per
// (input, output channel) pair instead of the direct conv's 9 t² (16 vs 36 for F(2x2), 36 vs 144
// for F(4x4)). The filter transform U = G g Gᵀ is done once (WinogradWeights): for each of the
// (t+2)² transform points ξ, a [C_out x C_in] matrix packed as A panels of the micro-kernel (mr
// rows). A run then, one block of tiles at a time:
//   1. writes V[ξ] = Bᵀ d B of every (channel, tile) straight into nr-wide B panels (k = C_in),
//   2. multiplies M[ξ] = U[ξ] · V[ξ] with the active ISA's MicroKernel::tile (no extra packing),
//   3. applies Y = Aᵀ M A plus the epilogue's bias, residual and clamp, storing to y.
// The input is first copied into zero-padded planes that hold every tile's patch (the conv's
// pads on the top/left, enough zeros on the bottom/right for partial tiles), so every tile takes
// the same path. The transforms are portable vector code compiled per ISA (winograd_impl.h).
// F(4x4) rounds more (coefficients up to 5 in Bᵀ and 8 in Aᵀ: ~6x F(2x2)'s error, ~5e-6 of the
// output range on squeezenet's convs) and does fewer products.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/conv/conv_geometry.h"
#include "kernels/mmm/mmm.h"

namespace kiln::kernels {

// Transform points of F(2x2, 3x3): a 4x4 patch; of F(4x4, 3x3): a 6x6 patch.
constexpr int kWinogradPoints = 16;
constexpr int kWinogradPoints4 = 36;

// The filter transform of an [m, c, 3, 3] f32 weight tensor, packed for `kernel`, for output
// tiles of `tile` x `tile` (2: F(2x2, 3x3), 4: F(4x4, 3x3)).
class WinogradWeights {
 public:
  WinogradWeights(const float* w, int64_t m, int64_t c, const MicroKernel& kernel, int tile = 2);
  // U[ξ] as m x c A panels (panel width kernel.mr).
  const PackedMatrix& point(int xi) const { return points_[static_cast<size_t>(xi)]; }
  int points() const { return static_cast<int>(points_.size()); }
  int tile() const { return tile_; }
  int64_t out_channels() const { return m_; }
  int64_t in_channels() const { return c_; }
  const MicroKernel& kernel() const { return *kernel_; }

 private:
  std::vector<PackedMatrix> points_;
  int64_t m_, c_;
  int tile_;
  const MicroKernel* kernel_;
};

// Whether `geo` is a conv Winograd F(2x2, 3x3) computes: 2-D (depth 1), 3x3, stride 1,
// dilation 1, non-negative pads.
bool winograd_supported(const ConvGeometry& geo);
// Whether it also beats the im2col / in-place matmul for m output and c input channels (the
// crossovers measured on the fire modules of squeezenet: see the definition).
bool winograd_pays(const MicroKernel& kernel, int64_t m, int64_t c, const ConvGeometry& geo);

// Floats of caller scratch winograd_conv needs: the padded planes (shared by all threads), and
// the blocks of each thread slot (V and M, winograd_thread_floats each, for the
// winograd_threads(w, geo, threads) slots it uses) plus 16 floats to align them.
int64_t winograd_padded_floats(int64_t c, const ConvGeometry& geo, int tile = 2);
int64_t winograd_scratch_floats(const WinogradWeights& w, const ConvGeometry& geo, int threads = 0);
int64_t winograd_thread_floats(const WinogradWeights& w, const ConvGeometry& geo, int threads = 0);
int winograd_threads(const WinogradWeights& w, const ConvGeometry& geo, int threads = 0);

// y (m planes of geo.out, contiguous) = epilogue(conv(x, w)) for one image x (c planes of geo.in).
// Only the epilogue's row_bias, residual (residual_ld: its plane stride, usually geo.out_size()),
// min and max are supported (other fields must be at their defaults). `padded`:
// winograd_padded_floats(c, geo) floats; `scratch`: winograd_scratch_floats(w, geo, threads)
// floats. Each output is computed by one thread
// in a fixed order: the result does not depend on the thread count.
void winograd_conv(const WinogradWeights& w, const float* x, const ConvGeometry& geo,
                   const Epilogue& ep, float* y, float* padded, float* scratch, int threads = 0);

// The per-ISA transforms (winograd_impl.h), for winograd.cpp's dispatch.
struct WinogradBlock {
  const float* padded;  // zero-padded planes: c planes of ph x pw
  int64_t c, pw, plane;
  int64_t tiles_x, tiles;  // tiles per row, tiles in the image
  int64_t t0, t1;          // this block's tiles
  int nr;                  // B panel width
  int64_t panel_floats;    // floats per B panel (c * nr rounded up to 16)
  int64_t point_floats;    // V's point stride (>= panels * panel_floats)
};
struct WinogradOut {
  const float* bias;      // m values or null
  const float* residual;  // channel planes of oh x ow, plane stride residual_ld, or null
  int64_t residual_ld;
  float* y;  // channel planes of oh x ow, plane stride oh * ow
  int64_t oh, ow;
  float min, max;
  bool clamp;
};
struct WinogradIsaFns {
  // V: 16 points x panels x panel_floats (c x nr), the block's tiles zero-padded to whole panels.
  void (*input)(const WinogradBlock& b, float* v);
  // Output channels [m0, m1) of the block from M (16 points x rows x ldm, row r = channel m0+r).
  void (*output)(const WinogradBlock& b, const float* mbuf, int64_t ldm, int64_t point_stride,
                 int64_t m0, int64_t m1, const WinogradOut& o);
  // The same for F(4x4, 3x3): 36 points.
  void (*input4)(const WinogradBlock& b, float* v);
  void (*output4)(const WinogradBlock& b, const float* mbuf, int64_t ldm, int64_t point_stride,
                  int64_t m0, int64_t m1, const WinogradOut& o);
};
WinogradIsaFns winograd_fns_generic();
#if defined(__x86_64__)
WinogradIsaFns winograd_fns_avx2();
WinogradIsaFns winograd_fns_avx512();
#endif
#if defined(__aarch64__) || defined(__arm__)
WinogradIsaFns winograd_fns_neon();
#endif

}  // namespace kiln::kernels
