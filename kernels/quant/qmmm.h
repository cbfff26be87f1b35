// Int8 packed matrix multiply with i32 accumulation:
//   C[m, n] = epilogue(sum_k (A[i, k] - za) * (B[k, j] - zb))
// A and B are u8 or s8 (u8 x s8, s8 x s8, u8 x u8 all work); the epilogue (kernels/epilogue.h,
// stage 0 + stage 1 + requantize) turns the i32 sums into f32, i32, u8 or i8 outputs.
//
// Two packed formats, chosen by the micro-kernel:
//   Wide16: every value widened to i16 with its zero point already subtracted, in pairs along k
//     (panel[kg][lane][2]); a product is VPMADDWD (x86) / SMLAL (NEON) / plain C: exact, no
//     saturation (|v - z| <= 255, so a pair sum fits easily), any zero points, per lane or not.
//   Dot4: raw bytes in groups of four along k (panel[kg][lane][4]) for VPDPBUSD (u8 x s8 dot
//     products into i32) or SDOT (s8 x s8). One side, the zero-point side, is read as u8
//     (VPDPBUSD) or s8 (SDOT: `dot_signed`), the other as signed with zero point 0 (symmetric
//     weights); a zero-point-side operand of the other signedness is flipped when packed (v ^
//     0x80: zero point + 128 to u8, - 128 to s8). That side's zero point z then becomes a
//     correction -z * sum_k(signed lane), precomputed per channel by the caller
//     (qdot_correction) and added with the bias as the epilogue's row_offset / col_offset.
// Panels are zero-padded to whole k groups and whole widths (zero bytes / zero i16 add nothing).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/isa.h"
#include "kernels/epilogue.h"

namespace kiln::kernels {

enum class QFormat : uint8_t { Wide16, Dot4 };

// The per-tile epilogue of an integer product: the float stage-1 arguments (as for float
// products; f.c unused) plus stage 0 and the store.
struct QTileArgs {
  float min, max;  // stage-1 clamp bounds when `clamp`
  bool clamp;
  const float* row_scale;
  const float* col_scale;
  const float* row_bias;
  const float* col_bias;
  const int32_t* row_offset;
  const int32_t* col_offset;
  OutputType output;
  int32_t zero_point;
  void* c;      // the tile's first output
  int64_t ldc;  // row stride of c, in elements
};

// A micro-kernel: the mr x nr tile of sums over kg k groups of packed panels `a` (kg * mr words)
// and `b` (kg * nr words), then the epilogue, storing the top-left rows x cols outputs only.
using QTileFn = void (*)(int64_t kg, const int32_t* a, const int32_t* b, const QTileArgs& t,
                         int rows, int cols);

// The epilogue of a 1 x n row of sums `acc` (stage 0 included), stored at t.c: for producers
// that sum outside a tile (depthwise convolutions).
using QRowFn = void (*)(const int32_t* acc, int64_t n, const QTileArgs& t);

// One channel plane of a depthwise convolution: the sums
//   acc[oy * ow + ox] = sum over the taps inside the input of (x[iy * w + ix] - x_zp) * wt[ky * kw
//   + kx]
// (taps in the padding add nothing, as if padded with the zero point; wt holds the weights with
// their zero point subtracted), then the epilogue of `t` (row 0's parameters: the channel's),
// storing the plane contiguously at t.c. `acc` (oh * ow sums) is the kernel's to use, `scratch`
// (qdepthwise_scratch_bytes, 8-byte aligned) takes the plane's zero-point-padded copy; `reuse`:
// the scratch was last used for a plane of the same geometry and x_zp (its border is kept).
struct QDepthwisePlane {
  int64_t h, w, oh, ow, kh, kw;
  int64_t stride_h, stride_w, dil_h, dil_w, pad_top, pad_left;
};
using QDepthwiseFn = void (*)(const QDepthwisePlane& g, const void* x, bool x_signed, int32_t x_zp,
                              const int32_t* wt, const QTileArgs& t, int32_t* acc, void* scratch,
                              bool reuse);
// Bytes of scratch a depthwise plane of any kernel takes (kernels/quant/qdepthwise_impl.h).
size_t qdepthwise_scratch_bytes(const QDepthwisePlane& g);

// Channels [0, n) of a depthwise convolution at once, n <= the kernel's dw_lanes (a lane per
// channel, kernels/quant/qdepthwise_channels_impl.h): channel c's plane at x + c * in_plane
// elements, its taps at wt + c * kh * kw (zero point subtracted), its epilogue parameters at
// row c of t (row_offset / row_scale / row_bias + c), its output plane at t.c + c * oh * ow
// outputs. The same outputs, bit for bit, as `depthwise` on each plane; faster on small planes.
using QDepthwiseChannelsFn = void (*)(const QDepthwisePlane& g, const void* x, int64_t in_plane,
                                      bool x_signed, int32_t x_zp, const int32_t* wt, int64_t n,
                                      const QTileArgs& t, void* scratch);
// Bytes of scratch (64-byte aligned) a block of channels of any kernel takes.
size_t qdepthwise_channels_scratch_bytes(const QDepthwisePlane& g);
// Whether a plane of this geometry goes faster through depthwise_channels (small planes).
bool qdepthwise_prefers_channels(const QDepthwisePlane& g);

// The sums of a matrix-vector product: acc[j] = sum_kk a[kk] * w[j * k + kk] for j < n, a the
// activation row widened to i16 with its zero point subtracted, w the weights as n rows of k
// signed bytes with zero point 0 (an [N, K] Gemm weight as stored). Reads the weights as bytes:
// half the memory of a Wide16 panel (a classifier's 1280 x 1000 weights stream from memory
// every run). Integer sums: exact, the same as the tiles'.
using QGemvFn = void (*)(const int16_t* a, const int8_t* w, int64_t n, int64_t k, int32_t* acc);

// The int8 kernels of one ISA: the matrix-multiply tile and its companions.
struct QMicroKernel {
  const char* name;  // "qmmm_i8_8x32_avx512vnni"
  Isa isa;
  QFormat format;
  bool a_unsigned;  // Dot4: whether A is the zero-point side (else B; the other: s8, zp 0)
  int mr, nr;
  QTileFn tile;
  QRowFn row;
  QDepthwiseFn depthwise;
  QDepthwiseChannelsFn depthwise_channels;
  int dw_lanes;     // channels per depthwise_channels call
  QGemvFn gemv;     // null: matrix-vector products go through the tiles
  bool dot_signed;  // Dot4: the zero-point side read as s8 (SDOT), else as u8 (VPDPBUSD)
};

// Values per k group of a format (2 or 4).
inline int qk_group(QFormat f) {
  return f == QFormat::Wide16 ? 2 : 4;
}

// Every int8 kernel this build has that this CPU can run, most portable first (tests).
std::vector<const QMicroKernel*> supported_q_kernels();
// The kernel for the active ISA (KILN_ISA): Dot4 (AVX-512 VNNI, AArch64 SDOT) when `dot_ok` and
// the CPU has it, with `a_unsigned` telling which side is the zero-point side; else the ISA's
// Wide16 kernel. KILN_INT8_DOT=0 forbids Dot4 kernels (to measure or test the Wide16 path on a
// VNNI or dot-product CPU).
const QMicroKernel& default_q_kernel(bool dot_ok, bool a_unsigned);

// An int8 operand: lane l, depth kk at data[l * stride_lane + kk * stride_k]; zero point(s): one
// value, or one per lane when `zp_per_lane`.
struct QOperand {
  const void* data = nullptr;
  bool is_signed = false;
  int64_t stride_lane = 0, stride_k = 0;
  const int32_t* zp = nullptr;  // null: 0
  bool zp_per_lane = false;
};

// Bytes of `lanes` x k packed for `kernel`'s A (a_side) or B side.
size_t qpacked_bytes(const QMicroKernel& kernel, bool a_side, int64_t lanes, int64_t k);
// Packs the operand into panels (64-byte aligned dst of qpacked_bytes). Dot4: the signed side
// must have zero point 0 (throws otherwise); the unsigned side's zero point is not applied (see
// qdot_correction).
void qpack(const QMicroKernel& kernel, bool a_side, const QOperand& src, int64_t lanes, int64_t k,
           void* dst);
// Whether `kernel` can take these operands (Dot4: the signed side's zero points all 0).
bool qkernel_accepts(const QMicroKernel& kernel, bool a_signed_zp_zero, bool b_signed_zp_zero);
// Dot4 only: the zero point the unsigned side (given as is_signed with zero point z) has once
// packed, i.e. the z of the -z * sum_k(signed lane) correction. Wide16: 0 (nothing to correct).
int32_t qdot_zero_point(const QMicroKernel& kernel, bool is_signed, int32_t z);
// Dot4 only: adds -z * sum_k s[lane, kk] to offsets[lane] for each of the `lanes` lanes of the
// signed side `s` (k deep), z = qdot_zero_point of the unsigned side. Wide16: adds nothing.
void qadd_dot_correction(const QMicroKernel& kernel, const QOperand& s, int64_t lanes, int64_t k,
                         int32_t z, int32_t* offsets);

// C = epilogue(A * B) for A (m x k) and B (k x n) packed for `kernel`; C row-major with row stride
// ldc elements of ep.output's type. threads <= 0: num_threads(). Each output is computed by one
// thread in a fixed order: the result does not depend on the thread count.
void qmmm(const QMicroKernel& kernel, int64_t m, int64_t n, int64_t k, const void* a_packed,
          const void* b_packed, const Epilogue& ep, void* c, int64_t ldc, int threads = 0);

// The reference: sums in i64 then the epilogue element by element (portable, for tests).
void qmmm_reference(int64_t m, int64_t n, int64_t k, const QOperand& a, const QOperand& b,
                    const Epilogue& ep, void* c, int64_t ldc);

// The tile arguments of `ep` at output (i0, j0) of C (row stride ldc).
QTileArgs qtile_args(const Epilogue& ep, void* c, int64_t ldc, int64_t i0, int64_t j0);
// The scalar epilogue (stage 0, stage 1, store) of the sum `acc` of output (i, j) of the tile
// `t`: what every qmmm path stores for it (edges, the portable tile, the reference), so every
// path rounds the same way.
void qstore_one(int32_t acc, const QTileArgs& t, int i, int j);

}  // namespace kiln::kernels
