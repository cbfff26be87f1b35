// The body of the vec_math kernels in GCC/Clang vector extensions, included by one .cpp per ISA
// (each compiled with its ISA's flags). Anonymous namespace: see kernels/mmm/x86_64/tile_simd.h.
#pragma once

#include <cmath>
#include <cstring>

#if defined(__aarch64__)
#include <arm_neon.h>
#endif

#include "kernels/elementwise/vec_math.h"
#include "kernels/partial_store.h"
#include "kernels/simd_width.h"

namespace kiln::kernels {
namespace {

constexpr int64_t kW = kSimdFloats;
typedef float Vf __attribute__((vector_size(kW * 4)));
typedef int32_t Vi __attribute__((vector_size(kW * 4)));

inline Vf load(const float* p) {
  Vf v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
inline void store(float* p, Vf v) {
  std::memcpy(p, &v, sizeof(v));
}
inline Vf splat(float x) {
  return Vf{} + x;
}
inline Vf vmin(Vf a, Vf b) {
  return a < b ? a : b;
}
inline Vf vmax(Vf a, Vf b) {
  return a > b ? a : b;
}

// minps / maxps semantics: x < y ? x : y (Max: x > y ? x : y), y when unordered or equal. One
// instruction on x86 instead of GCC's compare and blend, which lengthened HardSwish's dependency
// chain (its post steps run on a tile row or two at a time: PP-LCNet-like 1.06x, Zen 3). AVX-512:
// the maskz forms (GCC 12 warns maybe-uninitialized inside the plain ones).
template <bool Max>
inline Vf min_max_ps(Vf x, Vf y) {
#if defined(__AVX512F__)
  const __m512 a = reinterpret_cast<__m512>(x), b = reinterpret_cast<__m512>(y);
  return reinterpret_cast<Vf>(Max ? _mm512_maskz_max_ps(0xffff, a, b)
                                  : _mm512_maskz_min_ps(0xffff, a, b));
#elif defined(__AVX__)
  const __m256 a = reinterpret_cast<__m256>(x), b = reinterpret_cast<__m256>(y);
  return reinterpret_cast<Vf>(Max ? _mm256_max_ps(a, b) : _mm256_min_ps(a, b));
#else
  return Max ? (x > y ? x : y) : (x < y ? x : y);
#endif
}

// |x|: the sign bit cleared (bitwise std::abs, NaN included).
inline Vf vabs(Vf x) {
  Vi bits;
  std::memcpy(&bits, &x, sizeof(bits));
  bits &= 0x7fffffff;
  Vf r;
  std::memcpy(&r, &bits, sizeof(r));
  return r;
}

// The clamp and polynomial of exp(x): x = n ln2 + r with |r| <= ln2 / 2, exp(r) by a degree-6
// Taylor polynomial (error < 2e-7 relative on that interval), 2^n built in the exponent bits.
// x is first clamped to [lo, hi] = [-87.3, 88.7], a NaN kept (minps / maxps return their second
// operand when unordered): below lo the result is exp(lo) ~ 1.2e-38 instead of the true (tiny or
// zero) value, above hi it is +inf (n = 128). The callers whose formulas absorb that (sigmoid,
// SiLU, tanh, erf: 1 + e or 1 - tiny rounds the same) skip vexp's corrections.
inline Vf vexp_clamped(Vf x) {
  const Vf xc = min_max_ps<true>(splat(-87.3f), min_max_ps<false>(splat(88.7f), x));
  // Round x / ln2 to nearest with the 1.5 * 2^23 trick (|x / ln2| < 2^22 here).
  const Vf magic = splat(12582912.0f);
  Vf n = (xc * splat(1.44269504088896341f) + magic) - magic;
  Vf r = xc - n * splat(0.693359375f);
  r = r - n * splat(-2.12194440e-4f);
  Vf p = splat(1.0f / 720);
  p = p * r + splat(1.0f / 120);
  p = p * r + splat(1.0f / 24);
  p = p * r + splat(1.0f / 6);
  p = p * r + splat(0.5f);
  p = p * r + splat(1.0f);
  p = p * r + splat(1.0f);
  Vi bits = (__builtin_convertvector(n, Vi) + 127) << 23;
  Vf scale;
  std::memcpy(&scale, &bits, sizeof(scale));
  return p * scale;
}

// exp(x): vexp_clamped with the out-of-range lanes corrected (0 below lo, +inf above hi, NaN
// kept) for callers that see the value itself (Exp, softmax).
inline Vf vexp(Vf x) {
  const Vf hi = splat(88.7f), lo = splat(-87.3f);
  Vf y = vexp_clamped(x);
  // Below the clamp the true value underflows; above it overflows.
  y = x < lo ? splat(0.0f) : y;
  y = x > hi ? splat(__builtin_inff()) : y;
  return x != x ? x : y;  // NaN stays NaN
}

// 1 / (1 + exp(-x)): bitwise 1 / (1 + vexp(-x)) for every x (out of range, 1 + exp(lo) rounds
// to 1 as 1 + 0 does, and 1 / (1 + inf) is 0 either way).
inline Vf vsigmoid(Vf x) {
  return splat(1.0f) / (splat(1.0f) + vexp_clamped(-x));
}

// tanh: an odd Taylor polynomial for |x| < 0.0625 (where 1 - 2/(e^2x + 1) cancels), else
// 1 - 2 / (exp(2x) + 1), which saturates to +-1 for large |x|.
inline Vf vtanh(Vf x) {
  Vf big = splat(1.0f) - splat(2.0f) / (vexp_clamped(x + x) + splat(1.0f));
  Vf x2 = x * x;
  Vf small = x * (splat(1.0f) +
                  x2 * (splat(-1.0f / 3) + x2 * (splat(2.0f / 15) + x2 * splat(-17.0f / 315))));
  Vf ax = vmax(x, -x);
  return ax < splat(0.0625f) ? small : big;
}

// erf, Abramowitz & Stegun 7.1.26: 1 - (a1 t + .. + a5 t^5) exp(-x^2), t = 1 / (1 + p|x|), odd.
inline Vf verf(Vf x) {
  Vf ax = vmax(x, -x);
  Vf t = splat(1.0f) / (splat(1.0f) + splat(0.3275911f) * ax);
  Vf poly = splat(1.061405429f);
  poly = poly * t + splat(-1.453152027f);
  poly = poly * t + splat(1.421413741f);
  poly = poly * t + splat(-0.284496736f);
  poly = poly * t + splat(0.254829592f);
  poly = poly * t;
  Vf y = splat(1.0f) - poly * vexp_clamped(-(ax * ax));
  y = x < splat(0.0f) ? -y : y;
  return x != x ? x : y;
}

inline Vf vgelu(Vf x) {
  return splat(0.5f) * x * (splat(1.0f) + verf(x * splat(0.70710678118654752f)));
}

inline Vf vgelu_tanh(Vf x) {
  Vf inner = splat(0.79788456080286536f) * (x + splat(0.044715f) * x * x * x);
  return splat(0.5f) * x * (splat(1.0f) + vtanh(inner));
}

// x / (1 + exp(-x)): one division instead of x * (1 / (1 + exp(-x))), and one rounding fewer
// (within 4 ulp of the exact value wherever |y| > 1e-30, every float checked; the two-step form
// 4.5; 1.7x its rate on Zen 4). Out of range: x > 87.3 gives x / (1 + 1.2e-38) = x, x < -88.7
// gives x / inf = -0, as x * sigmoid(x) does; -inf gives NaN, +inf gives +inf, NaN stays NaN.
inline Vf vsilu(Vf x) {
  return x / (splat(1.0f) + vexp_clamped(-x));
}

// expm1(x): a degree-8 Taylor polynomial for |x| < 0.5 (truncation < 1.4e-8 relative there; no
// cancellation near 0), else exp(x) - 1 (relative error within 1.6x exp's where |x| >= 0.5).
// -inf gives -1, +inf +inf, NaN NaN.
inline Vf vexpm1(Vf x) {
  Vf p = splat(1.0f / 40320);
  p = p * x + splat(1.0f / 5040);
  p = p * x + splat(1.0f / 720);
  p = p * x + splat(1.0f / 120);
  p = p * x + splat(1.0f / 24);
  p = p * x + splat(1.0f / 6);
  p = p * x + splat(0.5f);
  const Vf small = x + (x * x) * p;
  const Vf big = vexp_clamped(x) - splat(1.0f);
  return vabs(x) < splat(0.5f) ? small : big;
}

// log(x): x = m 2^e with m in [sqrt(1/2), sqrt(2)) (subnormals scaled by 2^23 first), log(m) =
// f - f^2 / 2 + f^3 P(f) with f = m - 1 and the degree-8 minimax P of Cephes' logf, e ln2 in two
// parts (the exp constants). Within 2 ulp on positive floats; 0 gives -inf, negatives NaN, +inf
// +inf, NaN NaN.
inline Vf vlog(Vf x) {
  const Vi tiny = x < splat(1.17549435e-38f);
  const Vf xs = tiny ? x * splat(8388608.0f) : x;
  Vi bits;
  std::memcpy(&bits, &xs, sizeof(bits));
  Vi e = ((bits >> 23) & 0xff) - 127 - (tiny & 23);
  const Vi mbits = (bits & 0x007fffff) | 0x3f800000;
  Vf m;
  std::memcpy(&m, &mbits, sizeof(m));
  const Vi big = m > splat(1.41421356f);
  m = big ? m * splat(0.5f) : m;
  e = e - big;  // big is -1 where true
  const Vf f = m - splat(1.0f);
  const Vf z = f * f;
  Vf p = splat(7.0376836292e-2f);
  p = p * f + splat(-1.1514610310e-1f);
  p = p * f + splat(1.1676998740e-1f);
  p = p * f + splat(-1.2420140846e-1f);
  p = p * f + splat(1.4249322787e-1f);
  p = p * f + splat(-1.6668057665e-1f);
  p = p * f + splat(2.0000714765e-1f);
  p = p * f + splat(-2.4999993993e-1f);
  p = p * f + splat(3.3333331174e-1f);
  const Vf ef = __builtin_convertvector(e, Vf);
  Vf y = p * f * z;
  y = y + ef * splat(-2.12194440e-4f);
  y = y - splat(0.5f) * z;
  Vf r = f + y;
  r = r + ef * splat(0.693359375f);
  r = x == splat(0.0f) ? splat(-__builtin_inff()) : r;
  r = x < splat(0.0f) ? splat(__builtin_nanf("")) : r;
  r = x == splat(__builtin_inff()) ? x : r;
  return x != x ? x : r;
}

// log(1 + u) for u in [0, 1] (softplus' exp(-|x|)): 2 atanh(s), s = u / (2 + u) <= 1/3, by its
// odd series to s^15 (truncation < 5e-10 relative). No 1 + u is formed, so tiny u keep their
// digits, and nothing relies on (1 + u) - 1 surviving -funsafe-math-optimizations (armv7 NEON).
inline Vf vlog1p_unit(Vf u) {
  const Vf s = u / (splat(2.0f) + u);
  const Vf z = s * s;
  Vf p = splat(1.0f / 15);
  p = p * z + splat(1.0f / 13);
  p = p * z + splat(1.0f / 11);
  p = p * z + splat(1.0f / 9);
  p = p * z + splat(1.0f / 7);
  p = p * z + splat(1.0f / 5);
  p = p * z + splat(1.0f / 3);
  return splat(2.0f) * (s + s * z * p);
}

// softplus(x) = max(x, 0) + log(1 + exp(-|x|)): exp never overflows.
inline Vf vsoftplus(Vf x) {
  const Vf pos = x > splat(0.0f) ? x : splat(0.0f);
  const Vf l = vlog1p_unit(vexp_clamped(-vabs(x)));
  return x != x ? x : pos + l;
}

// mish(x) = x tanh(softplus(x)) = x n / (n + 2) with n = e (e + 2), e = exp(min(x, 20)): no
// logarithm; beyond 20 the ratio is 1 in float, below 0 it is ~e (no cancellation).
inline Vf vmish(Vf x) {
  const Vf e = vexp_clamped(min_max_ps<false>(splat(20.0f), x));
  const Vf n = e * (e + splat(2.0f));
  // Below -87 exp is clamped (1.2e-38, not e^x): the ratio is then 0, so a huge negative x gives
  // -0 and -inf NaN, as x * tanh(softplus(x)) does.
  const Vf ratio = x < splat(-87.0f) ? splat(0.0f) : n / (n + splat(2.0f));
  return x * ratio;
}

// sqrt per lane: the ISA's correctly rounded square root (bitwise std::sqrt).
inline Vf vsqrt(Vf x) {
#if defined(__AVX512F__)
  // The maskz form: GCC 12 warns maybe-uninitialized inside the plain one (as min_max_ps).
  return reinterpret_cast<Vf>(_mm512_maskz_sqrt_ps(0xffff, reinterpret_cast<__m512>(x)));
#elif defined(__AVX__)
  return reinterpret_cast<Vf>(_mm256_sqrt_ps(reinterpret_cast<__m256>(x)));
#elif defined(__SSE2__)
  return reinterpret_cast<Vf>(_mm_sqrt_ps(reinterpret_cast<__m128>(x)));
#elif defined(__aarch64__)
  return reinterpret_cast<Vf>(vsqrtq_f32(reinterpret_cast<float32x4_t>(x)));
#else
  Vf r;
  for (int64_t l = 0; l < kW; l++) r[l] = std::sqrt(x[l]);
  return r;
#endif
}

// std::min / std::max lane by lane (b < a ? b : a, a < b ? b : a): a NaN first argument is
// kept, which the clamps of HardSigmoid and HardSwish use to keep NaN (as the reference ops).
inline Vf std_min(Vf a, Vf b) {
  return min_max_ps<false>(b, a);
}
inline Vf std_max(Vf a, Vf b) {
  return min_max_ps<true>(b, a);
}

template <Vf (*F)(Vf)>
void apply_all(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + kW <= n; i += kW) store(y + i, F(load(x + i)));
  // The last partial vector, zeros in its other lanes (kernels/partial_store.h).
  if (i < n) store_lanes(y + i, F(load_lanes(x + i, n - i)), n - i);
}

// apply_all for a lambda (parameters captured).
template <class F>
void apply_lanes(const float* x, float* y, int64_t n, F&& f) {
  int64_t i = 0;
  for (; i + kW <= n; i += kW) store(y + i, f(load(x + i)));
  if (i < n) store_lanes(y + i, f(load_lanes(x + i, n - i)), n - i);
}

void exp_impl(const float* x, float* y, int64_t n) {
  apply_all<vexp>(x, y, n);
}
void sigmoid_impl(const float* x, float* y, int64_t n) {
  apply_all<vsigmoid>(x, y, n);
}
void tanh_impl(const float* x, float* y, int64_t n) {
  apply_all<vtanh>(x, y, n);
}
void erf_impl(const float* x, float* y, int64_t n) {
  apply_all<verf>(x, y, n);
}

#if defined(__arm__) && defined(__ARM_NEON)
// 32-bit ARM NEON has no division, and this file is compiled with -funsafe-math-optimizations
// there (see CMakeLists.txt), under which GCC turns a / b with a loop-invariant b into
// a * (1 / b): up to 1 ulp off, where Div must match the reference exactly. VFP's vdiv.f32 per
// lane is IEEE division, and an asm statement is one the optimizer cannot rewrite.
inline float exact_div(float a, float b) {
  float q;
  asm("vdiv.f32 %0, %1, %2" : "=t"(q) : "t"(a), "t"(b));
  return q;
}
inline Vf exact_div(Vf a, Vf b) {
  Vf q;
  for (int64_t l = 0; l < kW; l++) q[l] = exact_div(a[l], b[l]);
  return q;
}
#else
inline float exact_div(float a, float b) {
  return a / b;
}
inline Vf exact_div(Vf a, Vf b) {
  return a / b;
}
#endif

// x / 6 rounded as the division rounds it, for HardSwish: vdivps was its bottleneck (on Zen 3 a
// division per 8 floats every ~5 cycles; the HardSwish post steps were 17% of a PP-LCNet-like
// net). With FMA: q = fma(x, zh, x * zl), zh + zl = 1/6 (zh = RN(1/6), zl = RN(1/6 - zh)),
// equals RN(x / 6) for every float with |x| >= 1.9e-37 (checked on all 2^32 bit patterns:
// KernelsVecMath.HardSwishBitwiseOnEveryFloat with KILN_EXHAUSTIVE=1). Below that, both are below
// 2^-25 and x / 6 + 1/2 rounds to 1/2 either way; infinities are first clamped to +-6 (lin
// saturates there anyway, NaN kept), as x * zl of an infinite x would make the sum NaN. So
// HardSwish stays bitwise the reference.
inline Vf swish_lin(Vf x) {
#if defined(__FMA__) && (defined(__AVX2__) || defined(__AVX512F__))
  const Vf six = splat(6.0f), minus_six = splat(-6.0f);
  const Vf xc = std_min(std_max(x, minus_six), six);
  const Vf zh = splat(0x1.555556p-3f), zl = splat(-0x1.555556p-28f);
  const Vf xl = xc * zl;
#if defined(__AVX512F__)
  const Vf q = reinterpret_cast<Vf>(_mm512_fmadd_ps(
      reinterpret_cast<__m512>(xc), reinterpret_cast<__m512>(zh), reinterpret_cast<__m512>(xl)));
#else
  const Vf q = reinterpret_cast<Vf>(_mm256_fmadd_ps(
      reinterpret_cast<__m256>(xc), reinterpret_cast<__m256>(zh), reinterpret_cast<__m256>(xl)));
#endif
  return q + splat(0.5f);
#else
  return exact_div(x, splat(6.0f)) + splat(0.5f);
#endif
}

// Max / Min as the reference Max and Min (numpy's maximum / minimum): a NaN operand wins (a's
// first), else b when it is larger (smaller), else a.
template <int Op>
inline float scalar_op(float a, float b) {
  if constexpr (Op == 0) return a + b;
  if constexpr (Op == 1) return a - b;
  if constexpr (Op == 2) return a * b;
  if constexpr (Op == 4) return a != a ? a : (b != b ? b : (b > a ? b : a));
  if constexpr (Op == 5) return a != a ? a : (b != b ? b : (b < a ? b : a));
  if constexpr (Op == 6) return a < 0.0f ? a * b : a;
  return exact_div(a, b);
}

template <int Op>
inline Vf vector_op(Vf a, Vf b) {
  if constexpr (Op == 0) return a + b;
  if constexpr (Op == 1) return a - b;
  if constexpr (Op == 2) return a * b;
  if constexpr (Op == 4) return a != a ? a : (b != b ? b : (b > a ? b : a));
  if constexpr (Op == 5) return a != a ? a : (b != b ? b : (b < a ? b : a));
  if constexpr (Op == 6) return a < splat(0.0f) ? a * b : a;
  return exact_div(a, b);
}

template <int Op>
void binary_loop(int mode, const float* a, const float* b, float* y, int64_t n) {
  int64_t i = 0;
  if (mode == 0) {
    for (; i + kW <= n; i += kW) store(y + i, vector_op<Op>(load(a + i), load(b + i)));
    for (; i < n; i++) y[i] = scalar_op<Op>(a[i], b[i]);
  } else if (mode == 1) {
    const float bs = *b;
    const Vf bv = splat(bs);
    for (; i + kW <= n; i += kW) store(y + i, vector_op<Op>(load(a + i), bv));
    for (; i < n; i++) y[i] = scalar_op<Op>(a[i], bs);
  } else {
    const float as = *a;
    const Vf av = splat(as);
    for (; i + kW <= n; i += kW) store(y + i, vector_op<Op>(av, load(b + i)));
    for (; i < n; i++) y[i] = scalar_op<Op>(as, b[i]);
  }
}

void binary_impl(int op, int mode, const float* a, const float* b, float* y, int64_t n) {
  switch (op) {
    case 0:
      return binary_loop<0>(mode, a, b, y, n);
    case 1:
      return binary_loop<1>(mode, a, b, y, n);
    case 2:
      return binary_loop<2>(mode, a, b, y, n);
    case 4:
      return binary_loop<4>(mode, a, b, y, n);
    case 5:
      return binary_loop<5>(mode, a, b, y, n);
    case 6:
      return binary_loop<6>(mode, a, b, y, n);
    default:
      return binary_loop<3>(mode, a, b, y, n);
  }
}

// The LSTM cell on one vector of hidden units: ONNX gate pre-activations gi, go, gf, gc (input
// and recurrent products and biases summed), previous cell state cp, optional peepholes p
// (p + j, p + hidden + j, p + 2 * hidden + j: pi, po, pf); stores the new c and h at j. For the
// fused step kernel (kernels/recurrent/lstm_step_impl.h).
inline void lstm_lanes(const float* p, float* c, float* h, int64_t hidden, int64_t j, Vf gi, Vf go,
                       Vf gf, Vf gc, Vf cp) {
  Vf pi = splat(0.0f), po = splat(0.0f), pf = splat(0.0f);
  if (p) {
    pi = load(p + j);
    po = load(p + hidden + j);
    pf = load(p + 2 * hidden + j);
  }
  Vf i = vsigmoid(gi + pi * cp);
  Vf f = vsigmoid(gf + pf * cp);
  Vf cn = f * cp + i * vtanh(gc);
  Vf o = vsigmoid(go + po * cn);
  store(c + j, cn);
  store(h + j, o * vtanh(cn));
}

void unary_impl(UnaryFn fn, const float* x, float* y, int64_t n, float alpha, float beta) {
  switch (fn) {
    case UnaryFn::Exp:
      return apply_all<vexp>(x, y, n);
    case UnaryFn::Sigmoid:
      return apply_all<vsigmoid>(x, y, n);
    case UnaryFn::Tanh:
      return apply_all<vtanh>(x, y, n);
    case UnaryFn::Erf:
      return apply_all<verf>(x, y, n);
    case UnaryFn::Gelu:
      return apply_all<vgelu>(x, y, n);
    case UnaryFn::GeluTanh:
      return apply_all<vgelu_tanh>(x, y, n);
    case UnaryFn::Silu:
      return apply_all<vsilu>(x, y, n);
    case UnaryFn::Softplus:
      return apply_all<vsoftplus>(x, y, n);
    case UnaryFn::Mish:
      return apply_all<vmish>(x, y, n);
    case UnaryFn::Log:
      return apply_all<vlog>(x, y, n);
    case UnaryFn::Sqrt:
      return apply_all<vsqrt>(x, y, n);
    case UnaryFn::Abs:
      return apply_all<vabs>(x, y, n);
    case UnaryFn::Neg:
      return apply_lanes(x, y, n, [](Vf v) { return -v; });
    case UnaryFn::Reciprocal:
      return apply_lanes(x, y, n, [](Vf v) { return exact_div(splat(1.0f), v); });
    case UnaryFn::Softsign:
      return apply_lanes(x, y, n, [](Vf v) { return exact_div(v, splat(1.0f) + vabs(v)); });
    case UnaryFn::ThresholdedRelu: {
      const Vf a = splat(alpha), zero = splat(0.0f);
      return apply_lanes(x, y, n, [=](Vf v) { return v > a ? v : zero; });
    }
    case UnaryFn::Elu: {
      // x >= 0 ? x : alpha expm1(x); NaN: alpha * NaN.
      const Vf a = splat(alpha), zero = splat(0.0f);
      return apply_lanes(x, y, n, [=](Vf v) { return v >= zero ? v : a * vexpm1(v); });
    }
    case UnaryFn::Selu: {
      // gamma (beta) * (x > 0 ? x : alpha expm1(x)), in the reference's order.
      const Vf a = splat(alpha), g = splat(beta), zero = splat(0.0f);
      return apply_lanes(x, y, n, [=](Vf v) { return g * (v > zero ? v : a * vexpm1(v)); });
    }
    case UnaryFn::Celu: {
      // x > 0 ? x : alpha expm1(x / alpha).
      const Vf a = splat(alpha), zero = splat(0.0f);
      return apply_lanes(x, y, n, [=](Vf v) { return v > zero ? v : a * vexpm1(exact_div(v, a)); });
    }
    case UnaryFn::LeakyRelu: {
      const Vf a = splat(alpha), zero = splat(0.0f);
      auto f = [&](Vf v) { return v < zero ? a * v : v; };
      int64_t i = 0;
      for (; i + kW <= n; i += kW) store(y + i, f(load(x + i)));
      for (; i < n; i++) y[i] = x[i] < 0.0f ? alpha * x[i] : x[i];
      return;
    }
    case UnaryFn::Clamp: {
      // min(max(x, lo), hi), NaN kept (as the fused clamp of the register stage).
      const Vf lo = splat(alpha), hi = splat(beta);
      auto f = [&](Vf v) {
        const Vf m = lo > v ? lo : v;
        return hi < m ? hi : m;
      };
      int64_t i = 0;
      for (; i + kW <= n; i += kW) store(y + i, f(load(x + i)));
      for (; i < n; i++) {
        const float m = alpha > x[i] ? alpha : x[i];
        y[i] = beta < m ? beta : m;
      }
      return;
    }
    case UnaryFn::HardSigmoid:
    case UnaryFn::HardSwish: {
      // HardSwish: x * max(0, min(1, x / 6 + 1/2)), as the reference op computes it.
      const bool swish = fn == UnaryFn::HardSwish;
      const Vf a = splat(alpha), b = splat(beta), zero = splat(0.0f), one = splat(1.0f);
      auto f = [&](Vf v) {
        const Vf lin = swish ? swish_lin(v) : a * v + b;
        const Vf h = std_max(std_min(lin, one), zero);
        return swish ? v * h : h;
      };
      int64_t i = 0;
      for (; i + kW <= n; i += kW) store(y + i, f(load(x + i)));
      if (i < n) store_lanes(y + i, f(load_lanes(x + i, n - i)), n - i);
      return;
    }
  }
}

inline VecMath make_vec_math() {
  return VecMath{&exp_impl, &sigmoid_impl, &tanh_impl, &erf_impl, &binary_impl, &unary_impl};
}

}  // namespace
}  // namespace kiln::kernels
