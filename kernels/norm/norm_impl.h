// The body of the norm kernels in GCC/Clang vector extensions, included by one .cpp per ISA
// (each compiled with its ISA's flags). It reuses the vector type and the exp / erf / tanh of
// vec_math_impl.h; anonymous namespace: see kernels/mmm/x86_64/tile_simd.h.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/elementwise/vec_math_impl.h"
#include "kernels/norm/norm.h"

namespace kiln::kernels {
namespace {

inline float hsum(Vf v) {
  float s = 0;
  for (int64_t i = 0; i < kW; i++) s += v[i];
  return s;
}

inline float hmax(Vf v) {
  float m = v[0];
  for (int64_t i = 1; i < kW; i++) m = v[i] > m ? v[i] : m;
  return m;
}

// Loads the last n - i (< kW) values of x into a vector, the rest of the lanes set to `fill`.
inline Vf load_tail(const float* x, int64_t count, float fill) {
  float buf[kW];
  for (int64_t j = 0; j < kW; j++) buf[j] = fill;
  std::memcpy(buf, x, static_cast<size_t>(count) * sizeof(float));
  return load(buf);
}

inline void store_tail(float* y, Vf v, int64_t count) {
  float buf[kW];
  store(buf, v);
  std::memcpy(y, buf, static_cast<size_t>(count) * sizeof(float));
}

void softmax_row(const float* x, float* y, int64_t n, bool log) {
  const float neg_inf = -std::numeric_limits<float>::infinity();
  const int64_t full = n - n % kW, rest = n - full;
  Vf mv = splat(neg_inf);
  for (int64_t i = 0; i < full; i += kW) mv = vmax(mv, load(x + i));
  if (rest) mv = vmax(mv, load_tail(x + full, rest, neg_inf));
  const float m = hmax(mv);
  const Vf mvec = splat(m);
  // exp(x - max): the tail's padding lanes are -inf, so they add exp(-inf) = 0 to the sum.
  Vf sv = splat(0.0f);
  for (int64_t i = 0; i < full; i += kW) {
    Vf e = vexp(load(x + i) - mvec);
    sv += e;
    if (!log) store(y + i, e);
  }
  if (rest) {
    Vf e = vexp(load_tail(x + full, rest, neg_inf) - mvec);
    sv += e;
    if (!log) store_tail(y + full, e, rest);
  }
  const float sum = hsum(sv);
  if (log) {
    // (x - max) - log(sum), not x - (max + log(sum)): with |max| large (1e4) the sum max + log(sum)
    // would round to max's ulp (~1e-3) and lose log(sum)'s digits.
    const Vf lsum = splat(std::log(sum));
    for (int64_t i = 0; i < full; i += kW) store(y + i, (load(x + i) - mvec) - lsum);
    if (rest) store_tail(y + full, (load_tail(x + full, rest, 0.0f) - mvec) - lsum, rest);
    return;
  }
  const Vf inv = splat(1.0f / sum);
  for (int64_t i = 0; i < full; i += kW) store(y + i, load(y + i) * inv);
  if (rest) store_tail(y + full, load_tail(y + full, rest, 0.0f) * inv, rest);
}

void softmax_impl(const float* x, float* y, int64_t rows, int64_t n, bool log) {
  for (int64_t r = 0; r < rows; r++) softmax_row(x + r * n, y + r * n, n, log);
}

// Softmax over the middle axis of [len, inner] for the columns [j, j + count) (count <= kW): one
// vector of columns, its max, exponentials and sum down the len rows (each lane its own column;
// the lanes past count load zeros and are not stored).
inline void softmax_columns(const float* x, float* y, int64_t len, int64_t inner, int64_t j,
                            int64_t count, bool log) {
  auto ld = [&](const float* p) { return count == kW ? load(p) : load_lanes(p, count); };
  auto st = [&](float* p, Vf v) {
    if (count == kW)
      store(p, v);
    else
      store_lanes(p, v, count);
  };
  Vf m = splat(-std::numeric_limits<float>::infinity());
  for (int64_t a = 0; a < len; a++) m = vmax(m, ld(x + a * inner + j));
  Vf s = splat(0.0f);
  for (int64_t a = 0; a < len; a++) {
    const Vf e = vexp(ld(x + a * inner + j) - m);
    s += e;
    if (!log) st(y + a * inner + j, e);
  }
  if (log) {
    // (x - max) - log(sum), as softmax_row.
    const Vf ls = vlog(s);
    for (int64_t a = 0; a < len; a++) st(y + a * inner + j, (ld(x + a * inner + j) - m) - ls);
    return;
  }
  const Vf inv = splat(1.0f) / s;
  for (int64_t a = 0; a < len; a++) st(y + a * inner + j, ld(y + a * inner + j) * inv);
}

void softmax_axis_impl(const float* x, float* y, int64_t len, int64_t inner, int64_t j0, int64_t j1,
                       bool log) {
  for (int64_t j = j0; j < j1; j += kW)
    softmax_columns(x, y, len, inner, j, std::min<int64_t>(kW, j1 - j), log);
}

void layer_norm_row(const float* x, const float* gamma, const float* beta, float eps, float* y,
                    float* mean_out, float* inv_out, int64_t n) {
  const int64_t full = n - n % kW, rest = n - full;
  Vf sv = splat(0.0f);
  for (int64_t i = 0; i < full; i += kW) sv += load(x + i);
  if (rest) sv += load_tail(x + full, rest, 0.0f);
  const float mean = hsum(sv) / static_cast<float>(n);
  const Vf mv = splat(mean);
  Vf qv = splat(0.0f);
  for (int64_t i = 0; i < full; i += kW) {
    Vf d = load(x + i) - mv;
    qv += d * d;
  }
  if (rest) {
    Vf d = load_tail(x + full, rest, mean) - mv;  // padding lanes: d = 0
    qv += d * d;
  }
  const float inv = 1.0f / std::sqrt(hsum(qv) / static_cast<float>(n) + eps);
  const Vf iv = splat(inv);
  for (int64_t i = 0; i < full; i += kW) {
    Vf v = (load(x + i) - mv) * iv * load(gamma + i);
    if (beta) v += load(beta + i);
    store(y + i, v);
  }
  if (rest) {
    Vf v = (load_tail(x + full, rest, 0.0f) - mv) * iv * load_tail(gamma + full, rest, 0.0f);
    if (beta) v += load_tail(beta + full, rest, 0.0f);
    store_tail(y + full, v, rest);
  }
  if (mean_out) *mean_out = mean;
  if (inv_out) *inv_out = inv;
}

void layer_norm_impl(const float* x, const float* gamma, const float* beta, float eps, float* y,
                     float* mean, float* inv_std, int64_t rows, int64_t n) {
  for (int64_t r = 0; r < rows; r++)
    layer_norm_row(x + r * n, gamma, beta, eps, y + r * n, mean ? mean + r : nullptr,
                   inv_std ? inv_std + r : nullptr, n);
}

void gelu_impl(const float* x, float* y, int64_t n, bool tanh_form) {
  if (tanh_form) {
    apply_all<vgelu_tanh>(x, y, n);
  } else {
    apply_all<vgelu>(x, y, n);
  }
}

inline NormKernels make_norm_kernels() {
  return NormKernels{&softmax_impl, &layer_norm_impl, &gelu_impl, &softmax_axis_impl};
}

}  // namespace
}  // namespace kiln::kernels
