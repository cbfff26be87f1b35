// The AVX2 int8 kernel: Wide16 panels, 6 x 16 tiles, VPMADDWD + VPADDD (no saturation).
#include <immintrin.h>

#include <cstdint>

#include "kernels/quant/qdepthwise_channels_impl.h"
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
  // The requantizing stores clamp only from above in float (v <= hi keeps VCVTPS2DQ in range)
  // and leave the lower bound to the saturating narrowings: round(v) < lo = min - zp gives
  // round(v) + zp < min, which VPACKSSDW, the saturating add of zp in i16 and VPACK(S|U)SWB take
  // to min -- the same bytes as clamping to [lo, hi] first, two instructions fewer per vector.
  template <bool Signed, class T>
  static void store_q(T* p, V v, float lo, float hi, int32_t zp) {
    const VI q = _mm256_cvtps_epi32(_mm256_min_ps(v, _mm256_set1_ps(hi)));
    __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
    w = _mm_adds_epi16(w, _mm_set1_epi16(static_cast<int16_t>(zp)));
    const __m128i bytes = Signed ? _mm_packs_epi16(w, w) : _mm_packus_epi16(w, w);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(p), bytes);
  }
  // Two vectors (2W outputs) as store_q would store them one after the other, packed together:
  // one VPACKSSDW / VPACK(S|U)SWB of both and one lane-order fix instead of two extracts, two
  // 128-bit packs and two stores (q_epilogue uses it for the even / odd vectors of a row).
  template <bool Signed, class T>
  static void store_q2(T* p, V v0, V v1, float lo, float hi, int32_t zp) {
    const V h = _mm256_set1_ps(hi);
    const VI q0 = _mm256_cvtps_epi32(_mm256_min_ps(v0, h));
    const VI q1 = _mm256_cvtps_epi32(_mm256_min_ps(v1, h));
    // words: q0[0..3] q1[0..3] | q0[4..7] q1[4..7], plus the zero point
    const VI w =
        _mm256_adds_epi16(_mm256_packs_epi32(q0, q1), _mm256_set1_epi16(static_cast<int16_t>(zp)));
    // bytes, as double words: q0[0..3] q1[0..3] (twice) | q0[4..7] q1[4..7] (twice)
    const VI bytes = Signed ? _mm256_packs_epi16(w, w) : _mm256_packus_epi16(w, w);
    const VI ordered =
        _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 0, 4, 1, 5));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_castsi256_si128(ordered));
  }
};

// The 6 x 16 sums over kg groups. VPMADDWD does not accumulate, so a tile of 12
// accumulators needs 16 registers: the two B vectors, the broadcast A pair and the product. Left
// to itself GCC spilled accumulators to the stack in every k step (half the tile's time on
// mobilenet_v2); the loop is therefore written in assembly with exactly those 16 registers.
#define KILN_Q_ROW(off, c0, c1)            \
  "vpbroadcastd " #off                     \
  "(%[a]), %%ymm14\n\t"                    \
  "vpmaddwd %%ymm12, %%ymm14, %%ymm15\n\t" \
  "vpaddd %%ymm15, %[" #c0 "], %[" #c0     \
  "]\n\t"                                  \
  "vpmaddwd %%ymm13, %%ymm14, %%ymm15\n\t" \
  "vpaddd %%ymm15, %[" #c1 "], %[" #c1 "]\n\t"

// The sums (zero when kg == 0) handed to f as a 6 x 2 array of registers.
template <class F>
[[gnu::always_inline]] inline void with_sums_6x16(int64_t kg, const int32_t* a, const int32_t* b,
                                                  F&& f) {
  __m256i c00 = _mm256_setzero_si256(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
  __m256i c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
  if (kg > 0) {
    asm volatile(
        "1:\n\t"
        "vmovdqa (%[b]), %%ymm12\n\t"
        "vmovdqa 32(%[b]), %%ymm13\n\t"  //
        KILN_Q_ROW(0, c00, c01)          //
        KILN_Q_ROW(4, c10, c11)          //
        KILN_Q_ROW(8, c20, c21)          //
        KILN_Q_ROW(12, c30, c31)         //
        KILN_Q_ROW(16, c40, c41)         //
        KILN_Q_ROW(20, c50, c51)         //
        "add $24, %[a]\n\t"
        "add $64, %[b]\n\t"
        "dec %[n]\n\t"
        "jnz 1b\n\t"
        : [a] "+r"(a), [b] "+r"(b), [n] "+r"(kg), [c00] "+x"(c00), [c01] "+x"(c01), [c10] "+x"(c10),
          [c11] "+x"(c11), [c20] "+x"(c20), [c21] "+x"(c21), [c30] "+x"(c30), [c31] "+x"(c31),
          [c40] "+x"(c40), [c41] "+x"(c41), [c50] "+x"(c50), [c51] "+x"(c51)
        :
        : "ymm12", "ymm13", "ymm14", "ymm15", "cc", "memory");
  }
  __m256i acc[6][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}, {c40, c41}, {c50, c51}};
  f(acc);
}
#undef KILN_Q_ROW

// The sums of the first R rows and V B vectors only (the other rows zero): tiles of fewer rows
// than the panel's 6 (a matrix-vector product, m = 1: the classifier of every image model, a
// keyword spotter's dense layers) do a sixth of the 6-row loop's multiplies instead of all of
// them on zero rows, and a last panel of at most 8 columns (n = 49: a 7 x 7 plane's one column
// left after three panels; 196, 100: four) half of them. R <= 3 or V = 1: at most 6 accumulators
// leave GCC registers to spare.
template <int R, int V>
[[gnu::noinline]] void partial(int64_t kg, const int32_t* __restrict a, const int32_t* __restrict b,
                               const QTileArgs& t, int rows, int cols) {
  __m256i acc[6][V];
  for (auto& r : acc)
    for (auto& v : r) v = _mm256_setzero_si256();
  for (int64_t g = 0; g < kg; g++) {
    __m256i bv[V];
    for (int j = 0; j < V; j++)
      bv[j] = _mm256_load_si256(reinterpret_cast<const __m256i*>(b + j * 8));
#pragma GCC unroll 6
    for (int i = 0; i < R; i++) {
      const __m256i av = _mm256_set1_epi32(a[i]);
      for (int j = 0; j < V; j++)
        acc[i][j] = _mm256_add_epi32(acc[i][j], _mm256_madd_epi16(av, bv[j]));
    }
    a += 6;
    b += 16;
  }
  q_edge_x86<QLanes256, 6, V>(acc, t, rows, cols);
}

// Tiles of 1-3 rows through partial<rows, V>; false for more rows.
template <int V>
bool few_rows(int64_t kg, const int32_t* a, const int32_t* b, const QTileArgs& t, int rows,
              int cols) {
  switch (rows) {
    case 1:
      return partial<1, V>(kg, a, b, t, rows, cols), true;
    case 2:
      return partial<2, V>(kg, a, b, t, rows, cols), true;
    case 3:
      return partial<3, V>(kg, a, b, t, rows, cols), true;
    default:
      return false;
  }
}

void tile(int64_t kg, const int32_t* a, const int32_t* b, const QTileArgs& t, int rows, int cols) {
  if (cols <= 8) {
    if (!few_rows<1>(kg, a, b, t, rows, cols)) partial<6, 1>(kg, a, b, t, rows, cols);
    return;
  }
  if (few_rows<2>(kg, a, b, t, rows, cols)) return;
  with_sums_6x16(kg, a, b, [&](__m256i(&acc)[6][2]) {
    if (rows == 6 && cols == 16) {
      q_epilogue<QLanes256, 6, 2>(acc, t);
      return;
    }
    // The edge path takes its sums from memory: a copy, so that `acc` never has its address
    // taken and stays in registers on the full-tile path (GCC otherwise stored and reloaded all 12
    // accumulators around every tile's epilogue).
    __m256i edge[6][2];
    for (int i = 0; i < 6; i++) edge[i][0] = acc[i][0], edge[i][1] = acc[i][1];
    q_edge_x86<QLanes256, 6, 2>(edge, t, rows, cols);
  });
}

void row(const int32_t* acc, int64_t n, const QTileArgs& t) {
  q_row<QLanes256>(acc, n, t);
}

// The 8 i32 lanes of v summed.
inline int32_t hsum(__m256i v) {
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
  return _mm_cvtsi128_si32(s);
}

// QGemvFn: four weight rows at a time against 16 activations per step (one load of a, per row
// one widening load of 16 weight bytes, one VPMADDWD, one add), horizontal sums once per row;
// the last k % 16 columns and n % 4 rows in plain C++.
void gemv(const int16_t* __restrict a, const int8_t* __restrict w, int64_t n, int64_t k,
          int32_t* __restrict acc) {
  const int64_t k16 = k / 16 * 16;
  auto tail = [&](const int8_t* r) {
    int32_t s = 0;
    for (int64_t kk = k16; kk < k; kk++) s += a[kk] * r[kk];
    return s;
  };
  auto wide = [](const int8_t* p) {
    return _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  };
  int64_t j = 0;
  for (; j + 4 <= n; j += 4) {
    const int8_t* r0 = w + j * k;
    const int8_t *r1 = r0 + k, *r2 = r1 + k, *r3 = r2 + k;
    __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
    for (int64_t kk = 0; kk < k16; kk += 16) {
      const __m256i av = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + kk));
      s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(av, wide(r0 + kk)));
      s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(av, wide(r1 + kk)));
      s2 = _mm256_add_epi32(s2, _mm256_madd_epi16(av, wide(r2 + kk)));
      s3 = _mm256_add_epi32(s3, _mm256_madd_epi16(av, wide(r3 + kk)));
    }
    acc[j] = hsum(s0) + tail(r0);
    acc[j + 1] = hsum(s1) + tail(r1);
    acc[j + 2] = hsum(s2) + tail(r2);
    acc[j + 3] = hsum(s3) + tail(r3);
  }
  for (; j < n; j++) {
    const int8_t* r = w + j * k;
    __m256i s0 = _mm256_setzero_si256();
    for (int64_t kk = 0; kk < k16; kk += 16)
      s0 = _mm256_add_epi32(
          s0, _mm256_madd_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + kk)),
                                wide(r + kk)));
    acc[j] = hsum(s0) + tail(r);
  }
}
}  // namespace

const QMicroKernel kQAvx2Wide{"qmmm_i8_6x16_avx2",
                              Isa::Avx2,
                              QFormat::Wide16,
                              false,
                              6,
                              16,
                              &tile,
                              &row,
                              &q_depthwise_vec<8, QLanes256>,
                              &q_depthwise_channels<8, QLanes256>,
                              8,
                              &gemv,
                              false};

}  // namespace kiln::kernels
