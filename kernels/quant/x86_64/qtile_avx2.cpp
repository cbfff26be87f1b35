// The AVX2 int8 kernel: Wide16 panels, 6 x 16 tiles, VPMADDWD + VPADDD (no saturation).
#include <immintrin.h>

#include <cstdint>

#include "kernels/quant/qdepthwise_impl.h"
#include "kernels/quant/qtiles.h"
#include "kernels/quant/x86_64/qtile_x86.h"

namespace kiln::kernels {

namespace {

struct QLanes256 {
  using V = __m256;
  using VI = __m256i;
  static constexpr int W = 8;
  static V zero() { return _mm256_setzero_ps(); }
  static V set1(float x) { return _mm256_set1_ps(x); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V max_keep(V v, V bound) { return _mm256_max_ps(bound, v); }
  static V min_keep(V v, V bound) { return _mm256_min_ps(bound, v); }
  static VI zeroi() { return _mm256_setzero_si256(); }
  static VI set1i(int32_t x) { return _mm256_set1_epi32(x); }
  static VI addi(VI a, VI b) { return _mm256_add_epi32(a, b); }
  static VI loadi(const int32_t* p) { return _mm256_loadu_si256(reinterpret_cast<const VI*>(p)); }
  static VI load_aligned(const int32_t* p) {
    return _mm256_load_si256(reinterpret_cast<const VI*>(p));
  }
  static void storei(int32_t* p, VI v) { _mm256_storeu_si256(reinterpret_cast<VI*>(p), v); }
  static V cvt(VI v) { return _mm256_cvtepi32_ps(v); }
  static V loadf(const float* p) { return _mm256_loadu_ps(p); }
  static void storef(float* p, V v) { _mm256_storeu_ps(p, v); }
  template <bool Signed, class T>
  static void store_q(T* p, V v, float lo, float hi, int32_t zp) {
    v = _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps(lo)), _mm256_set1_ps(hi));
    const VI q = _mm256_add_epi32(_mm256_cvtps_epi32(v), _mm256_set1_epi32(zp));
    const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
    const __m128i bytes = Signed ? _mm_packs_epi16(w, w) : _mm_packus_epi16(w, w);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(p), bytes);
  }
};

struct MaddStep {
  static __m256i step(__m256i acc, __m256i a, __m256i b) {
    return _mm256_add_epi32(acc, _mm256_madd_epi16(a, b));
  }
};

void tile(int64_t kg, const int32_t* a, const int32_t* b, const QTileArgs& t, int rows, int cols) {
  q_tile_x86<QLanes256, 6, 2, MaddStep>(kg, a, b, t, rows, cols);
}

void row(const int32_t* acc, int64_t n, const QTileArgs& t) {
  q_row<QLanes256>(acc, n, t);
}
}  // namespace

const QMicroKernel kQAvx2Wide{
    "qmmm_i8_6x16_avx2",           Isa::Avx2, QFormat::Wide16, false, 6, 16, &tile, &row,
    &q_depthwise_vec<8, QLanes256>};

}  // namespace kiln::kernels
