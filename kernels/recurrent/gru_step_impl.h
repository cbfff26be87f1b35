// The body of the fused GRU step (gru_step.h), in GCC/Clang vector extensions, included by one
// .cpp per ISA (each compiled with its ISA's flags). It shares the LSTM step's multiply-add and
// vec_math's sigmoid / tanh; anonymous namespace: see kernels/mmm/x86_64/tile_simd.h.
#pragma once

#include "kernels/recurrent/gru_step.h"
#include "kernels/recurrent/lstm_step_impl.h"

namespace kiln::kernels {
namespace {

constexpr int64_t kGruCols = 3 * kW;

// h' = n + z (h - n) on one vector of units.
inline Vf gru_mix(Vf z, Vf n, Vf h) {
  return n + z * (h - n);
}

// linear_before_reset = 1, blocks [b, b + N): 3 N accumulators (N = 3 keeps 9 in flight).
template <int N>
inline void after_blocks(const float* r, const float* xw, const float* rbh, const float* h,
                         int64_t hidden, float* h_out, int64_t b) {
  Vf acc[N][3];
  const float* panel[N];
  for (int n = 0; n < N; n++) {
    panel[n] = r + (b + n) * hidden * kGruCols;
    acc[n][0] = load(xw + (b + n) * kGruCols);
    acc[n][1] = load(xw + (b + n) * kGruCols + kW);
    acc[n][2] = load(rbh + (b + n) * kW);
  }
  for (int64_t j = 0; j < hidden; j++) {
    const Vf hv = splat(h[j]);
    for (int n = 0; n < N; n++) {
      const float* row = panel[n] + j * kGruCols;
      for (int q = 0; q < 3; q++) acc[n][q] = madd(acc[n][q], hv, load(row + q * kW));
    }
  }
  for (int n = 0; n < N; n++) {
    const int64_t u = (b + n) * kW;
    const Vf z = vsigmoid(acc[n][0]), rg = vsigmoid(acc[n][1]);
    const Vf cand = vtanh(load(xw + (b + n) * kGruCols + 2 * kW) + rg * acc[n][2]);
    store(h_out + u, gru_mix(z, cand, load(h + u)));
  }
}

void step_after_impl(const float* r, const float* xw, const float* rbh, const float* h,
                     int64_t hidden, float* h_out, int64_t first, int64_t last) {
  int64_t b = first;
  for (; b + 3 <= last; b += 3) after_blocks<3>(r, xw, rbh, h, hidden, h_out, b);
  for (; b < last; b++) after_blocks<1>(r, xw, rbh, h, hidden, h_out, b);
}

// linear_before_reset = 0, first pass on blocks [b, b + N): the z and r gates.
template <int N>
inline void gate_blocks(const float* r, const float* xw, const float* h, int64_t hidden, float* z,
                        float* rh, int64_t b) {
  Vf acc[N][2];
  const float* panel[N];
  for (int n = 0; n < N; n++) {
    panel[n] = r + (b + n) * hidden * kGruCols;
    acc[n][0] = load(xw + (b + n) * kGruCols);
    acc[n][1] = load(xw + (b + n) * kGruCols + kW);
  }
  for (int64_t j = 0; j < hidden; j++) {
    const Vf hv = splat(h[j]);
    for (int n = 0; n < N; n++) {
      const float* row = panel[n] + j * kGruCols;
      for (int q = 0; q < 2; q++) acc[n][q] = madd(acc[n][q], hv, load(row + q * kW));
    }
  }
  for (int n = 0; n < N; n++) {
    const int64_t u = (b + n) * kW;
    store(z + u, vsigmoid(acc[n][0]));
    store(rh + u, vsigmoid(acc[n][1]) * load(h + u));
  }
}

void reset_gates_impl(const float* r, const float* xw, const float* h, int64_t hidden, float* z,
                      float* rh, int64_t first, int64_t last) {
  int64_t b = first;
  for (; b + 4 <= last; b += 4) gate_blocks<4>(r, xw, h, hidden, z, rh, b);
  for (; b < last; b++) gate_blocks<1>(r, xw, h, hidden, z, rh, b);
}

// Second pass on blocks [b, b + N): the candidate from rh and the new state.
template <int N>
inline void candidate_blocks(const float* r, const float* xw, const float* rh, const float* z,
                             const float* h, int64_t hidden, float* h_out, int64_t b) {
  Vf acc[N];
  const float* panel[N];
  for (int n = 0; n < N; n++) {
    panel[n] = r + (b + n) * hidden * kGruCols + 2 * kW;
    acc[n] = load(xw + (b + n) * kGruCols + 2 * kW);
  }
  for (int64_t j = 0; j < hidden; j++) {
    const Vf v = splat(rh[j]);
    for (int n = 0; n < N; n++) acc[n] = madd(acc[n], v, load(panel[n] + j * kGruCols));
  }
  for (int n = 0; n < N; n++) {
    const int64_t u = (b + n) * kW;
    store(h_out + u, gru_mix(load(z + u), vtanh(acc[n]), load(h + u)));
  }
}

void candidate_impl(const float* r, const float* xw, const float* rh, const float* z,
                    const float* h, int64_t hidden, float* h_out, int64_t first, int64_t last) {
  int64_t b = first;
  for (; b + 8 <= last; b += 8) candidate_blocks<8>(r, xw, rh, z, h, hidden, h_out, b);
  for (; b < last; b++) candidate_blocks<1>(r, xw, rh, z, h, hidden, h_out, b);
}

inline GruKernels make_gru_kernels() {
  return GruKernels{kW, &step_after_impl, &reset_gates_impl, &candidate_impl};
}

}  // namespace
}  // namespace kiln::kernels
