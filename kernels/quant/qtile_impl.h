// The int8 micro-kernels' shared parts, written once over traits and instantiated by each ISA's
// file (anonymous namespace: each translation unit keeps its own copy, see
// kernels/mmm/x86_64/tile_simd.h):
//   - q_epilogue: stage 0 (i32 offsets) on the accumulator registers, conversion to float, then
//     the register stage of the one fused epilogue (epilogue_regs, kernels/epilogue_impl.h) with a
//     store that requantizes (clamp to the output range, round half to even, add the zero point,
//     narrow) or writes f32 / i32;
//   - q_tile_wide_portable: the Wide16 tile in plain C++ (the generic kernel, and NEON's, which
//     the compiler vectorizes into widening multiply-accumulates);
//   - q_store_edge: a partial tile through the scalar qstore_one.
// Traits S (besides epilogue_regs' float ones): VI (W i32 lanes), set1i, addi, loadi, storei,
// cvt (i32 -> f32), loadf, storef, store_q<Signed>(dst, v, lo, hi, zp) (v already in [lo, hi]
// after the clamp it applies; rounds half to even; adds zp; stores W bytes).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/epilogue_impl.h"
#include "kernels/quant/qmmm.h"

namespace kiln::kernels {
namespace {

inline TileArgs q_float_args(const QTileArgs& q) {
  TileArgs f{};
  f.row_scale = q.row_scale;
  f.col_scale = q.col_scale;
  f.row_bias = q.row_bias;
  f.col_bias = q.col_bias;
  f.clamp = q.clamp;
  f.min = q.min;
  f.max = q.max;
  return f;
}

// Whether the traits S store two vectors of 8-bit outputs at once (store_q2: the same bytes as
// two store_q calls).
template <class S>
constexpr bool kQStorePairs = requires(typename S::V v, uint8_t* p) {
  S::template store_q2<false>(p, v, v, 0.f, 0.f, 0);
};

// The register stage then the requantizing store of 8-bit outputs (Signed: i8, else u8): clamp to
// the output range minus the zero point, round half to even, add the zero point, narrow. Rows of
// an even number of vectors go two vectors at a time when S has store_q2.
template <class S, int R, int NV, bool Signed, class Load>
[[gnu::always_inline]] inline void q_store_8bit(typename S::V (&v)[R][NV], const TileArgs& f,
                                                Load&& load, const QTileArgs& q) {
  using V = typename S::V;
  using Out = std::conditional_t<Signed, int8_t, uint8_t>;
  constexpr int W = S::W;
  Out* c = static_cast<Out*>(q.c);
  const float lo = static_cast<float>((Signed ? -128 : 0) - q.zero_point);
  const float hi = static_cast<float>((Signed ? 127 : 255) - q.zero_point);
  if constexpr (kQStorePairs<S> && NV % 2 == 0) {
    V held{};
    epilogue_regs<S, R, NV>(v, f, load, [&](int i, int j, V x) {
      if (j % 2 == 0) {
        held = x;
        return;
      }
      S::template store_q2<Signed>(c + i * q.ldc + (j - 1) * W, held, x, lo, hi, q.zero_point);
    });
  } else {
    epilogue_regs<S, R, NV>(v, f, load, [&](int i, int j, V x) {
      S::template store_q<Signed>(c + i * q.ldc + j * W, x, lo, hi, q.zero_point);
    });
  }
}

template <class S, int R, int NV>
[[gnu::always_inline]] inline void q_epilogue(typename S::VI (&acc)[R][NV], const QTileArgs& q) {
  using V = typename S::V;
  constexpr int W = S::W;
  if (q.row_offset) {
#pragma GCC unroll 16
    for (int i = 0; i < R; i++) {
      const auto o = S::set1i(q.row_offset[i]);
#pragma GCC unroll 4
      for (int j = 0; j < NV; j++) acc[i][j] = S::addi(acc[i][j], o);
    }
  }
  if (q.col_offset) {
#pragma GCC unroll 4
    for (int j = 0; j < NV; j++) {
      const auto o = S::loadi(q.col_offset + j * W);
#pragma GCC unroll 16
      for (int i = 0; i < R; i++) acc[i][j] = S::addi(acc[i][j], o);
    }
  }
  if (q.output == OutputType::I32) {
    int32_t* c = static_cast<int32_t*>(q.c);
#pragma GCC unroll 16
    for (int i = 0; i < R; i++) {
#pragma GCC unroll 4
      for (int j = 0; j < NV; j++) S::storei(c + i * q.ldc + j * W, acc[i][j]);
    }
    return;
  }
  V v[R][NV];
#pragma GCC unroll 16
  for (int i = 0; i < R; i++) {
#pragma GCC unroll 4
    for (int j = 0; j < NV; j++) v[i][j] = S::cvt(acc[i][j]);
  }
  const TileArgs f = q_float_args(q);
  auto load = [](const float* p, int) { return S::loadf(p); };
  switch (q.output) {
    case OutputType::F32: {
      float* c = static_cast<float*>(q.c);
      epilogue_regs<S, R, NV>(v, f, load,
                              [&](int i, int j, V x) { S::storef(c + i * q.ldc + j * W, x); });
      break;
    }
    case OutputType::U8:
      q_store_8bit<S, R, NV, false>(v, f, load, q);
      break;
    case OutputType::I8:
      q_store_8bit<S, R, NV, true>(v, f, load, q);
      break;
    case OutputType::I32:
      break;
  }
}

// A partial tile: the MR x NR sums `acc` (row-major) through the scalar epilogue, rows x cols.
template <int MR, int NR>
[[gnu::noinline]] void q_store_edge(const int32_t (&acc)[MR * NR], const QTileArgs& t, int rows,
                                    int cols) {
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++) qstore_one(acc[i * NR + j], t, i, j);
}

// t moved to its output (i, j).
[[gnu::always_inline]] inline QTileArgs q_shift(const QTileArgs& t, int64_t i, int64_t j) {
  QTileArgs o = t;
  if (o.row_scale) o.row_scale += i;
  if (o.col_scale) o.col_scale += j;
  if (o.row_bias) o.row_bias += i;
  if (o.col_bias) o.col_bias += j;
  if (o.row_offset) o.row_offset += i;
  if (o.col_offset) o.col_offset += j;
  const size_t size = t.output == OutputType::U8 || t.output == OutputType::I8 ? 1 : 4;
  o.c = static_cast<char*>(t.c) + static_cast<size_t>(i * t.ldc + j) * size;
  return o;
}

// The epilogue of a row of n sums, W at a time, then one by one.
template <class S>
void q_row(const int32_t* acc, int64_t n, const QTileArgs& t) {
  constexpr int W = S::W;
  int64_t j = 0;
  for (; j + W <= n; j += W) {
    typename S::VI v[1][1] = {{S::loadi(acc + j)}};
    q_epilogue<S, 1, 1>(v, q_shift(t, 0, j));
  }
  for (; j < n; j++) qstore_one(acc[j], t, 0, j);
}

// Portable float/int "vectors" of one lane.
struct QScalarLanes : ScalarLanes {
  using VI = int32_t;
  static VI set1i(int32_t x) { return x; }
  static VI addi(VI a, VI b) { return a + b; }
  static VI loadi(const int32_t* p) { return *p; }
  static void storei(int32_t* p, VI v) { *p = v; }
  static V cvt(VI v) { return static_cast<float>(v); }
  static V loadf(const float* p) { return *p; }
  static void storef(float* p, V v) { *p = v; }
  template <bool Signed, class T>
  static void store_q(T* p, V v, float lo, float hi, int32_t zp) {
    v = v < lo ? lo : (v > hi ? hi : v);
    *p = static_cast<T>(static_cast<int32_t>(std::nearbyint(v)) + zp);
  }
};

// The Wide16 tile in plain C++: a (kg x MR pairs), b (kg x NR pairs) of i16.
template <int MR, int NR>
inline void q_tile_wide_portable(int64_t kg, const int32_t* a32, const int32_t* b32,
                                 const QTileArgs& t, int rows, int cols) {
  const int16_t* a = reinterpret_cast<const int16_t*>(a32);
  const int16_t* b = reinterpret_cast<const int16_t*>(b32);
  int32_t acc[MR * NR] = {};
  for (int64_t g = 0; g < kg; g++) {
    const int16_t* ag = a + g * MR * 2;
    const int16_t* bg = b + g * NR * 2;
    for (int i = 0; i < MR; i++) {
      const int32_t a0 = ag[2 * i], a1 = ag[2 * i + 1];
      for (int j = 0; j < NR; j++) acc[i * NR + j] += a0 * bg[2 * j] + a1 * bg[2 * j + 1];
    }
  }
  if (rows == MR && cols == NR) {
    int32_t v[MR][NR];
    for (int i = 0; i < MR; i++)
      for (int j = 0; j < NR; j++) v[i][j] = acc[i * NR + j];
    q_epilogue<QScalarLanes, MR, NR>(v, t);
  } else {
    q_store_edge<MR, NR>(acc, t, rows, cols);
  }
}

// The matrix-vector sums (QGemvFn) in plain C++ (generic; NEON, where the compiler widens and
// multiplies-accumulates 8 lanes at a time).
inline void q_gemv_portable(const int16_t* __restrict a, const int8_t* __restrict w, int64_t n,
                            int64_t k, int32_t* __restrict acc) {
  for (int64_t j = 0; j < n; j++) {
    const int8_t* r = w + j * k;
    int32_t s = 0;
    for (int64_t kk = 0; kk < k; kk++) s += a[kk] * r[kk];
    acc[j] = s;
  }
}

}  // namespace
}  // namespace kiln::kernels
