// Packed f32 matrix multiply: C[m, n] = epilogue(A[m, k] * B[k, n]).
//
// A is cut into panels of `mr` rows and B into panels of `nr` columns, each packed k-major
// (panel[kk * width + i]) and zero-padded to the full width, so a register-blocked micro-kernel
// streams both with unit stride. Weights are packed once (PackedMatrix); activations are packed
// on the fly, one panel at a time, by a PanelSource (plain strided matrices, or im2col for
// convolutions). The fused epilogue (scale, bias, residual, accumulate, LeakyRelu, clamp) is
// applied to the accumulators before the single store of each output.
//
// Adding an ISA means writing one TileFn for it (and optionally an EdgeTileFn for partial tiles)
// and listing it in kernels/mmm/isa.cpp.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace kiln::kernels {

// Instruction sets with micro-kernels, from the most portable up.
enum class Isa { Generic, Avx2, Avx512, Neon };

// "generic", "avx2", "avx512", "neon".
std::string isa_name(Isa isa);
// Whether this CPU (and OS) can run code for `isa`.
bool isa_supported(Isa isa);
// The ISA kernels use: KILN_ISA=generic|avx2|avx512|neon when set (error if unsupported here), else
// the best supported one. Read once per process.
Isa active_isa();
// Every ISA this machine can run (for tests and benchmarks).
std::vector<Isa> supported_isas();

// What happens to each output after the products are summed, in this order:
//   v = acc * row_scale[i] * col_scale[j] + row_bias[i] + col_bias[j]
//       + residual[i * residual_ld + j] + (accumulate ? C[i, j] : 0)
//   v = v < 0 ? leaky_alpha * v : v          (when leaky)
//   v = min(max(v, min), max)                (Relu: min 0; Clip / Relu6: min, max)
// Null pointers and default values mean "nothing to do".
struct Epilogue {
  const float* row_scale = nullptr;  // m values
  const float* col_scale = nullptr;  // n values
  const float* row_bias = nullptr;   // m values
  const float* col_bias = nullptr;   // n values
  const float* residual = nullptr;   // m x n, row stride residual_ld
  int64_t residual_ld = 0;
  bool accumulate = false;
  bool leaky = false;
  float leaky_alpha = 0.0f;
  float min = -std::numeric_limits<float>::infinity();
  float max = std::numeric_limits<float>::infinity();
};

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

// Applies `ep` to a rows x cols block of raw accumulators `acc` (row stride ld_acc) whose first
// output is (i0, j0), storing into c (the whole output, row stride ldc). Portable; used for edge
// tiles and by tests.
void apply_epilogue(const float* acc, int64_t ld_acc, int64_t rows, int64_t cols, int64_t i0,
                    int64_t j0, const Epilogue& ep, float* c, int64_t ldc);

// C = epilogue(A * B) with A m x k (panels of kernel.mr rows) and B k x n (panels of kernel.nr
// columns); C row-major with row stride ldc. Splits output tiles over up to `threads` threads
// (<= 0: kiln::num_threads()); each output is computed by one thread in a fixed order, so the
// result does not depend on the thread count.
void mmm(const MicroKernel& kernel, int64_t m, int64_t n, int64_t k, const PanelSource& a,
         const PanelSource& b, const Epilogue& ep, float* c, int64_t ldc, int threads = 0);

}  // namespace kiln::kernels
