// The body of the fused LSTM step (lstm_step.h), in GCC/Clang vector extensions, included by one
// .cpp per ISA (each compiled with its ISA's flags). It reuses vec_math's vector type, sigmoid,
// tanh and cell lanes; anonymous namespace: see kernels/mmm/x86_64/tile_simd.h.
#pragma once

#include "kernels/elementwise/vec_math_impl.h"
#include "kernels/recurrent/lstm_step.h"

#if defined(__AVX512F__) || defined(__FMA__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace kiln::kernels {
namespace {

// acc + a * b, fused where the ISA has an FMA (the build is ISO C++: no implicit contraction).
inline Vf madd(Vf acc, Vf a, Vf b) {
#if defined(__AVX512F__)
  return (Vf)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)acc);
#elif defined(__FMA__)
  return (Vf)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)acc);
#elif defined(__aarch64__)
  return (Vf)vfmaq_f32((float32x4_t)acc, (float32x4_t)a, (float32x4_t)b);
#else
  return acc + a * b;
#endif
}

// Blocks [b, b + N): N * 4 accumulators (N = 2 keeps 8 multiply-adds in flight), then the cell.
template <int N>
inline void step_blocks(const float* r, const float* xw, const float* p, const float* h,
                        int64_t hidden, float* c, float* h_out, int64_t b) {
  constexpr int64_t kCols = 4 * kW;
  Vf acc[N][4];
  const float* panel[N];
  for (int n = 0; n < N; n++) {
    panel[n] = r + (b + n) * hidden * kCols;
    for (int q = 0; q < 4; q++) acc[n][q] = load(xw + (b + n) * kCols + q * kW);
  }
  for (int64_t j = 0; j < hidden; j++) {
    const Vf hv = splat(h[j]);
    for (int n = 0; n < N; n++) {
      const float* row = panel[n] + j * kCols;
      for (int q = 0; q < 4; q++) acc[n][q] = madd(acc[n][q], hv, load(row + q * kW));
    }
  }
  for (int n = 0; n < N; n++) {
    const int64_t u = (b + n) * kW;
    lstm_lanes(nullptr, p ? p + (b + n) * 3 * kW : nullptr, c + u, h_out + u, kW, 0, acc[n][0],
               acc[n][1], acc[n][2], acc[n][3], load(c + u));
  }
}

void lstm_step_impl(const float* r, const float* xw, const float* p, const float* h, int64_t hidden,
                    float* c, float* h_out, int64_t first, int64_t last) {
  int64_t b = first;
  for (; b + 2 <= last; b += 2) step_blocks<2>(r, xw, p, h, hidden, c, h_out, b);
  if (b < last) step_blocks<1>(r, xw, p, h, hidden, c, h_out, b);
}

inline LstmKernels make_lstm_kernels() {
  return LstmKernels{kW, &lstm_step_impl};
}

}  // namespace
}  // namespace kiln::kernels
