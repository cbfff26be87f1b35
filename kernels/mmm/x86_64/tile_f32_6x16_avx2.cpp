// AVX2+FMA micro-kernel: 6 rows x 16 columns (12 ymm accumulators, 2 for B, 1 broadcast).
// Compiled with -mavx2 -mfma; called only when CPUID says so.
#include <immintrin.h>

#include "kernels/mmm/tiles.h"
#include "kernels/mmm/x86_64/tile_simd.h"
#include "kernels/partial_store.h"

namespace kiln::kernels {
namespace {
struct Avx2 {
  using V = __m256;
  using Mask = __m256i;
  static constexpr int W = 8;
  static V zero() { return _mm256_setzero_ps(); }
  static V load(const float* p) { return _mm256_load_ps(p); }
  static V loadu(const float* p) { return _mm256_loadu_ps(p); }
  static void storeu(float* p, V v) { _mm256_storeu_ps(p, v); }
  static V set1(float x) { return _mm256_set1_ps(x); }
  static V fmadd(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V max(V a, V b) { return _mm256_max_ps(a, b); }
  static V min(V a, V b) { return _mm256_min_ps(a, b); }
  // max / min of v and bound, v when v is NaN (the instruction returns its second operand then).
  static V max_keep(V v, V bound) { return _mm256_max_ps(bound, v); }
  static V min_keep(V v, V bound) { return _mm256_min_ps(bound, v); }
  // Lanes [0, n): all bits set where the lane index is below n.
  static Mask mask(int n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  // vmaskmovps load: masked-off lanes are not read (no fault past the end of B or C). The store
  // writes the mask's first lanes with plain moves (kernels/partial_store.h: the masked store is
  // microcoded on AMD Zen); the mask is always a prefix.
  static V maskload(const float* p, Mask m) { return _mm256_maskload_ps(p, m); }
  static void maskstore(float* p, Mask m, V v) {
    store_first_n(p, v, __builtin_popcount(_mm256_movemask_ps(_mm256_castsi256_ps(m))));
  }
};
}  // namespace

void tile_f32_6x16_avx2(int64_t k, const float* a, const float* b, const TileArgs& args) {
  simd_full_tile<Avx2, 6, 2>(k, a, b, args);
}

void edge_f32_6x16_avx2(int64_t k, const float* a, const float* b, const TileArgs& args, int rows,
                        int cols) {
  simd_edge_tile<Avx2, 6, 2>(k, a, b, args, rows, cols);
}

void in_place_f32_6x16_avx2(int64_t k, const float* a, const float* b, const int64_t* off,
                            const TileArgs& args, int rows, int cols) {
  simd_in_place_tile<Avx2, 6, 2>(k, a, b, off, args, rows, cols);
}

}  // namespace kiln::kernels
