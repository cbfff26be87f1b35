// AVX-512F micro-kernel: 8 rows x 32 columns (16 zmm accumulators, 2 for B, broadcasts of A
// folded into the FMAs). Compiled with -mavx512f -mfma; called only when CPUID says so.
#include <immintrin.h>

#include "kernels/mmm/tiles.h"
#include "kernels/mmm/x86_64/tile_simd.h"

namespace kiln::kernels {
namespace {
struct Avx512 {
  using V = __m512;
  using Mask = __mmask16;
  static constexpr int W = 16;
  static V zero() { return _mm512_setzero_ps(); }
  static V load(const float* p) { return _mm512_load_ps(p); }
  static V loadu(const float* p) { return _mm512_loadu_ps(p); }
  static void storeu(float* p, V v) { _mm512_storeu_ps(p, v); }
  static V set1(float x) { return _mm512_set1_ps(x); }
  static V fmadd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V add(V a, V b) { return _mm512_add_ps(a, b); }
  static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
  // maskz forms: GCC 12 warns (maybe-uninitialized) inside the plain _mm512_max/min_ps.
  static V max(V a, V b) { return _mm512_maskz_max_ps(0xffff, a, b); }
  static V min(V a, V b) { return _mm512_maskz_min_ps(0xffff, a, b); }
  // max / min of v and bound, v when v is NaN (the instruction returns its second operand then).
  static V max_keep(V v, V bound) { return max(bound, v); }
  static V min_keep(V v, V bound) { return min(bound, v); }
  // Lanes [0, n); masked-off lanes are neither read nor written.
  static Mask mask(int n) { return static_cast<Mask>((1u << n) - 1); }
  static V maskload(const float* p, Mask m) { return _mm512_maskz_loadu_ps(m, p); }
  static void maskstore(float* p, Mask m, V v) { _mm512_mask_storeu_ps(p, m, v); }
};
}  // namespace

void tile_f32_8x32_avx512(int64_t k, const float* a, const float* b, const TileArgs& args) {
  simd_full_tile<Avx512, 8, 2>(k, a, b, args);
}

void edge_f32_8x32_avx512(int64_t k, const float* a, const float* b, const TileArgs& args, int rows,
                          int cols) {
  simd_edge_tile<Avx512, 8, 2>(k, a, b, args, rows, cols);
}

void in_place_f32_8x32_avx512(int64_t k, const float* a, const float* b, const int64_t* off,
                              const TileArgs& args, int rows, int cols) {
  simd_in_place_tile<Avx512, 8, 2>(k, a, b, off, args, rows, cols);
}

}  // namespace kiln::kernels
