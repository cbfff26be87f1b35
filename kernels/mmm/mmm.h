// Packed f32 matrix multiply: C[m, n] = epilogue(A[m, k] * B[k, n]).
//
// A is cut into panels of `mr` rows and B into panels of `nr` columns, each packed k-major
// (panel[kk * width + i]) and zero-padded to the full width, so a register-blocked micro-kernel
// streams both with unit stride. Weights are packed once (PackedMatrix); activations are packed
// on the fly, one panel at a time, by a PanelSource (plain strided matrices, or im2col for
// convolutions). The fused epilogue (kernels/epilogue.h) is applied to the accumulators before the
// single store of each output (scale, bias, residual, accumulate, LeakyRelu, clamp), then its post
// steps to each stored tile.
//
// Adding an ISA means writing one TileFn for it (and optionally an EdgeTileFn for partial tiles)
// and listing it in kernels/mmm/isa.cpp.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "base/isa.h"
#include "kernels/epilogue.h"

namespace kiln::kernels {

// ISA detection lives in base/isa.h; kernels name it as their own.
using kiln::active_isa;
using kiln::Isa;
using kiln::isa_name;
using kiln::isa_supported;
using kiln::supported_isas;

// The epilogue of one tile, its pointers already offset to the tile's first row/column.
struct TileArgs {
  float* c;     // tile's top-left output; columns contiguous
  int64_t ldc;  // row stride of c
  const float* row_scale;
  const float* col_scale;
  const float* row_bias;
  const float* col_bias;
  const float* residual;
  int64_t residual_ld;
  bool residual_last;  // add the residual after leaky / clamp (an Add after a Relu)
  bool accumulate;
  bool leaky;
  float leaky_alpha;
  bool clamp;  // apply min/max (false when both are infinite, which keeps NaNs)
  float min, max;
};

// A micro-kernel: for a full mr x nr tile, acc[i][j] = sum_kk a[kk*mr + i] * b[kk*nr + j]
// (k >= 0; k == 0 gives zeros), then the epilogue described by `args`, then one store per output.
// `a` and `b` are 64-byte aligned packed panels. Kernels may assume nothing else.
using TileFn = void (*)(int64_t k, const float* a, const float* b, const TileArgs& args);
// A partial tile: the same product and epilogue for the top-left `rows` x `cols` outputs only
// (1 <= rows <= mr, 1 <= cols <= nr) of an mr x nr tile, whose panels are still mr and nr wide
// (zero-padded). Reads and writes nothing of C (nor of the epilogue's column / residual operands)
// outside those outputs, so it stores straight into C at the right and bottom borders.
using EdgeTileFn = void (*)(int64_t k, const float* a, const float* b, const TileArgs& args,
                            int rows, int cols);
// A tile whose B is read in place instead of from a packed panel: step kk's columns are
// b[off[kk] + j], j < cols (a plain matrix: off[kk] = kk * ldb; a convolution: the input at the
// tap of step kk). The top-left `rows` x `cols` outputs (1 <= rows <= mr, 1 <= cols <= nr; the
// full tile when both are whole), with `a` a packed mr-wide panel as for TileFn. Reads nothing of B
// beyond those columns (B need not be aligned nor padded; it may prefetch past them, which never
// faults) and writes only those outputs.
using InPlaceTileFn = void (*)(int64_t k, const float* a, const float* b, const int64_t* off,
                               const TileArgs& args, int rows, int cols);

struct MicroKernel {
  const char* name;  // "mmm_f32_8x32_avx512"
  Isa isa;
  int mr, nr;
  TileFn tile;
  // Null: mmm computes a partial tile as a full one into a scratch tile and copies its corner.
  EdgeTileFn edge;
  // Null: this ISA has no in-place variant; mmm_in_place must not be called (use mmm).
  InPlaceTileFn in_place;
};

// The kernel of an ISA (throws when this build has none for it).
const MicroKernel& micro_kernel(Isa isa);
// The kernel of active_isa().
const MicroKernel& default_micro_kernel();

// Packs `width` rows (or columns) of a matrix into one panel of `panel_width` lanes, k deep:
// dst[kk * panel_width + i] = src[i * stride_lane + kk * stride_k] for i < width, 0 beyond.
void pack_panel(const float* src, int64_t width, int64_t panel_width, int64_t k,
                int64_t stride_lane, int64_t stride_k, float* dst);

// Where a matrix operand's panels come from. Panel p covers lanes [p*w, min((p+1)*w, size)).
class PanelSource {
 public:
  virtual ~PanelSource() = default;
  // The packed panel p (k * w floats, 64-byte aligned); may be written into `scratch`
  // (k * w floats, 64-byte aligned) and returned from there.
  virtual const float* panel(int64_t p, float* scratch) const = 0;
  // True when panel() never uses scratch (packed ahead of time): cheap to call repeatedly.
  virtual bool prepacked() const { return false; }
};

// A matrix packed once into panels (weights). `rows_are_lanes`: panels of rows (the A side,
// for mr) or of columns (the B side, for nr).
class PackedMatrix : public PanelSource {
 public:
  PackedMatrix() = default;
  // Packs the `lanes` x `k` operand read at src[lane * stride_lane + kk * stride_k].
  PackedMatrix(const float* src, int64_t lanes, int64_t k, int64_t stride_lane, int64_t stride_k,
               int panel_width);
  const float* panel(int64_t p, float* scratch) const override;
  bool prepacked() const override { return true; }
  int64_t lanes() const { return lanes_; }
  int64_t k() const { return k_; }
  int panel_width() const { return width_; }
  size_t bytes() const { return count_ * sizeof(float); }

 private:
  struct Free {
    void operator()(float* p) const;
  };
  std::unique_ptr<float, Free> data_;
  size_t count_ = 0;
  int64_t lanes_ = 0, k_ = 0;
  int width_ = 0;
};

// A plain strided matrix operand, packed per panel when asked: lane l, depth kk at
// src[l * stride_lane + kk * stride_k].
class StridedSource : public PanelSource {
 public:
  StridedSource(const float* src, int64_t lanes, int64_t k, int64_t stride_lane, int64_t stride_k,
                int panel_width)
      : src_(src), lanes_(lanes), k_(k), sl_(stride_lane), sk_(stride_k), width_(panel_width) {}
  const float* panel(int64_t p, float* scratch) const override;

 private:
  const float* src_;
  int64_t lanes_, k_, sl_, sk_;
  int width_;
};

// How mmm runs an m x n x k product, decided once for the shape, the operands' kinds and the
// thread count (plan_mmm): the threads, how they split the tiles, the blocking, and the scratch
// the caller lends (A packed per run, one B block per thread, all of B, a column's offsets).
struct MmmPlan {
  const MicroKernel* kernel = nullptr;
  int64_t m = 0, n = 0, k = 0;
  bool a_prepacked = true, b_prepacked = true;
  int threads = 1;
  // Threads take ranges of B panels (each packing its own blocks of a per-run B), or of A panels
  // (after a per-run B is packed whole, up front).
  bool split_a = false;
  int64_t block = 1;    // B panels per block (B within ~128 KiB)
  bool narrow = false;  // a last B panel of one column, read through the in-place tile
  // Scratch layout, in floats from the lent pointer (each piece 64-byte aligned).
  size_t a_at = 0, b_blocks_at = 0, b_all_at = 0, off_at = 0;
  size_t block_floats = 0;    // one B block (per thread)
  size_t scratch_floats = 0;  // in all
};

// The plan of C = A * B for these sizes; `a_prepacked` / `b_prepacked`: the operands are packed
// ahead of time (PanelSource::prepacked). threads <= 0: kiln::num_threads().
MmmPlan plan_mmm(const MicroKernel& kernel, int64_t m, int64_t n, int64_t k, bool a_prepacked,
                 bool b_prepacked, int threads = 0);

// C = epilogue(A * B) with A m x k (panels of kernel.mr rows) and B k x n (panels of kernel.nr
// columns) as `plan` says (the operands must be of the kinds it was made for); C row-major with
// row stride ldc. `scratch`: plan.scratch_floats floats, 64-byte aligned (may be null when 0).
// Each output is computed by one thread in a fixed order, so the result does not depend on the
// thread count.
void mmm(const MmmPlan& plan, const PanelSource& a, const PanelSource& b, const Epilogue& ep,
         float* c, int64_t ldc, float* scratch);

// The same, planned and given scratch of its own for this call (tests, benchmarks: it allocates).
void mmm(const MicroKernel& kernel, int64_t m, int64_t n, int64_t k, const PanelSource& a,
         const PanelSource& b, const Epilogue& ep, float* c, int64_t ldc, int threads = 0);

}  // namespace kiln::kernels
