// vec_math kernels vs std:: in double, for every ISA: the error bounds stated in
// kernels/elementwise/vec_math.h, checked on a dense sweep plus special values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "kernels/elementwise/vec_math.h"

namespace kiln {
namespace {

// Whether `isa` flushes subnormal inputs and results to zero: Advanced SIMD in AArch32 state
// (the armv7 build's NEON) always does, whatever FPSCR says (Arm ARM, "Flush-to-zero"); AArch64
// NEON and x86 do not.
bool flushes_subnormals(kernels::Isa isa) {
#if defined(__arm__)
  return isa == kernels::Isa::Neon;
#else
  (void)isa;
  return false;
#endif
}

// y is what `isa` gives for the exact result `want`: equal (sign included), or, where `isa`
// flushes and `want` is subnormal or comes from subnormal inputs (`tiny_input`), both zero once
// flushed (a flushed min(1e-40, -0) may return either operand's bits).
bool same_or_flushed(kernels::Isa isa, float y, float want, bool tiny_input = false) {
  const float smallest = std::numeric_limits<float>::min();
  if (flushes_subnormals(isa) && (std::fpclassify(want) == FP_SUBNORMAL || tiny_input) &&
      std::fabs(y) < smallest && std::fabs(want) < smallest)
    return true;
  return y == want && std::signbit(y) == std::signbit(want);
}

std::vector<float> sweep(float lo, float hi, int n) {
  std::vector<float> v;
  for (int i = 0; i <= n; i++) v.push_back(lo + (hi - lo) * static_cast<float>(i) / n);
  for (float x : {0.0f, -0.0f, 1e-30f, -1e-30f, 0.0625f, -0.0625f, 0.06249f}) v.push_back(x);
  return v;
}

TEST(KernelsVecMath, ExpSigmoidTanhWithinStatedError) {
  for (kernels::Isa isa : kernels::supported_isas()) {
    SCOPED_TRACE(kernels::isa_name(isa));
    const auto& vm = kernels::vec_math(isa);
    auto x = sweep(-87.0f, 88.0f, 200003);  // odd count: exercises the vector tail
    std::vector<float> y(x.size());
    vm.exp(x.data(), y.data(), static_cast<int64_t>(x.size()));
    double worst = 0;
    for (size_t i = 0; i < x.size(); i++) {
      double want = std::exp(static_cast<double>(x[i]));
      worst = std::max(worst, std::fabs(y[i] - want) / want);
    }
    EXPECT_LE(worst, 4e-7);
    auto s = sweep(-30.0f, 30.0f, 100001);
    std::vector<float> ys(s.size()), yt(s.size());
    vm.sigmoid(s.data(), ys.data(), static_cast<int64_t>(s.size()));
    vm.tanh(s.data(), yt.data(), static_cast<int64_t>(s.size()));
    std::vector<float> ye(s.size());
    vm.erf(s.data(), ye.data(), static_cast<int64_t>(s.size()));
    double ws = 0, wt = 0, we = 0;
    for (size_t i = 0; i < s.size(); i++) {
      double v = s[i];
      ws = std::max(ws, std::fabs(ys[i] - 1.0 / (1.0 + std::exp(-v))));
      wt = std::max(wt, std::fabs(yt[i] - std::tanh(v)));
      we = std::max(we, std::fabs(ye[i] - std::erf(v)));
    }
    EXPECT_LE(ws, 2e-7);
    EXPECT_LE(wt, 6e-7);
    EXPECT_LE(we, 5e-7);
  }
}

TEST(KernelsVecMath, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  for (kernels::Isa isa : kernels::supported_isas()) {
    const auto& vm = kernels::vec_math(isa);
    std::vector<float> x = {-inf, inf, -200.0f, 200.0f, std::nanf("")};
    std::vector<float> e(x.size()), s(x.size()), t(x.size());
    vm.exp(x.data(), e.data(), 5);
    vm.sigmoid(x.data(), s.data(), 5);
    vm.tanh(x.data(), t.data(), 5);
    EXPECT_EQ(e[0], 0.0f);
    EXPECT_EQ(e[1], inf);
    EXPECT_EQ(e[2], 0.0f);
    EXPECT_EQ(e[3], inf);
    EXPECT_TRUE(std::isnan(e[4]));
    EXPECT_EQ(s[0], 0.0f);
    EXPECT_EQ(s[1], 1.0f);
    EXPECT_EQ(t[0], -1.0f);
    EXPECT_EQ(t[1], 1.0f);
    EXPECT_TRUE(std::isnan(t[4]));
  }
}

// add, sub, mul, div are single IEEE operations, and prelu (op 6) x < 0 ? x * slope : x: every ISA
// must give the bits of plain float arithmetic, in every broadcast mode, vector body and tail
// alike (on 32-bit ARM the NEON file is built with -funsafe-math-optimizations, under which GCC
// would divide by a reciprocal).
TEST(KernelsVecMath, BinaryIsExactInEveryMode) {
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> d(-3, 3);
  for (kernels::Isa isa : kernels::supported_isas()) {
    const auto& vm = kernels::vec_math(isa);
    for (int64_t n : {1, 3, 4, 5, 8, 17, 67}) {
      std::vector<float> a(n), b(n), y(n);
      for (auto& v : a) v = d(rng);
      for (auto& v : b) v = d(rng) + (d(rng) < 0 ? -3.5f : 3.5f);  // never near 0
      for (int op : {0, 1, 2, 3, 6}) {
        for (int mode = 0; mode < 3; mode++) {
          vm.binary(op, mode, a.data(), b.data(), y.data(), n);
          for (int64_t i = 0; i < n; i++) {
            float x = mode == 2 ? a[0] : a[i], z = mode == 1 ? b[0] : b[i];
            volatile float want = op == 0   ? x + z
                                  : op == 1 ? x - z
                                  : op == 2 ? x * z
                                  : op == 6 ? (x < 0 ? x * z : x)
                                            : x / z;
            ASSERT_EQ(y[i], want) << kernels::isa_name(isa) << " op " << op << " mode " << mode
                                  << " n " << n << " i " << i;
          }
        }
      }
    }
  }
}

// Max and Min as the reference (numpy's maximum / minimum): NaN wins, a's first; otherwise the
// larger (smaller), a on ties (so -0 vs +0 keeps a). Every ISA, every mode, body and tail.
TEST(KernelsVecMath, MaxMinLikeTheReference) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> values = {-2.5f, -0.0f, 0.0f, 1.0f, 3.0f, nan, inf, -inf, 1e-40f};
  for (kernels::Isa isa : kernels::supported_isas()) {
    const auto& vm = kernels::vec_math(isa);
    // Every pair, laid out so both the vector body and the tail see them.
    std::vector<float> a, b;
    for (float x : values)
      for (float z : values) {
        a.push_back(x);
        b.push_back(z);
      }
    const auto n = static_cast<int64_t>(a.size());
    std::vector<float> y(a.size());
    for (int op : {4, 5}) {
      vm.binary(op, 0, a.data(), b.data(), y.data(), n);
      for (int64_t i = 0; i < n; i++) {
        const float x = a[i], z = b[i];
        const float want = std::isnan(x)   ? x
                           : std::isnan(z) ? z
                                           : (op == 4 ? (z > x ? z : x) : (z < x ? z : x));
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(y[i])) << kernels::isa_name(isa) << " op " << op << " i " << i;
        } else {
          // (a subnormal operand reads as zero where the ISA flushes: max(-0, 1e-40) is then a
          // zero of either sign)
          const bool tiny =
              std::fpclassify(x) == FP_SUBNORMAL || std::fpclassify(z) == FP_SUBNORMAL;
          EXPECT_TRUE(same_or_flushed(isa, y[i], want, tiny))
              << kernels::isa_name(isa) << " op " << op << " " << x << " " << z << ": " << y[i];
        }
      }
      // A scalar operand on either side.
      vm.binary(op, 1, a.data(), &values[4], y.data(), n);
      for (int64_t i = 0; i < n; i++) {
        if (!std::isnan(a[i])) {
          EXPECT_TRUE(
              same_or_flushed(isa, y[i], op == 4 ? std::max(a[i], 3.0f) : std::min(a[i], 3.0f)))
              << kernels::isa_name(isa) << " op " << op << " " << a[i] << ": " << y[i];
        }
      }
    }
  }
}

// The activations of the fused epilogue's post steps: HardSwish, LeakyRelu and Clamp equal the
// reference formula bit for bit, HardSigmoid within one rounding (a possible FMA); Silu within
// sigmoid's bound times |x|; Gelu within kernels/norm/norm.h's bound. Every ISA, lengths that leave
// vector tails.
TEST(KernelsVecMath, UnaryStepsLikeTheReference) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> d(-8, 8);
  for (kernels::Isa isa : kernels::supported_isas()) {
    SCOPED_TRACE(kernels::isa_name(isa));
    const auto& vm = kernels::vec_math(isa);
    for (int64_t n : {1, 7, 16, 33, 1001}) {
      std::vector<float> x(static_cast<size_t>(n)), y(x.size());
      for (auto& v : x) v = d(rng);
      x[0] = -0.0f;
      if (n > 3) x[3] = 3.0f;  // HardSwish's corner: x / 6 + 1/2 = 1
      using F = kernels::UnaryFn;
      // alpha x + beta may be one fused multiply-add in the vector code (GCC contracts it where
      // the ISA has FMA): within one rounding of the two-step form.
      vm.unary(F::HardSigmoid, x.data(), y.data(), n, 0.2f, 0.5f);
      for (int64_t i = 0; i < n; i++)
        ASSERT_NEAR(y[i], std::max(std::min(0.2f * x[i] + 0.5f, 1.0f), 0.0f), 1.2e-7) << i;
      vm.unary(F::HardSwish, x.data(), y.data(), n, 0, 0);
      for (int64_t i = 0; i < n; i++)
        ASSERT_EQ(y[i], x[i] * std::max(std::min(x[i] / 6.0f + 0.5f, 1.0f), 0.0f)) << i;
      vm.unary(F::LeakyRelu, x.data(), y.data(), n, 0.1f, 0);
      for (int64_t i = 0; i < n; i++) ASSERT_EQ(y[i], x[i] >= 0 ? x[i] : 0.1f * x[i]) << i;
      vm.unary(F::Clamp, x.data(), y.data(), n, -1.0f, 6.0f);
      for (int64_t i = 0; i < n; i++) ASSERT_EQ(y[i], std::min(std::max(x[i], -1.0f), 6.0f)) << i;
      vm.unary(F::Silu, x.data(), y.data(), n, 0, 0);
      for (int64_t i = 0; i < n; i++) {
        const double v = x[i], want = v / (1.0 + std::exp(-v));
        ASSERT_NEAR(y[i], want, 2e-7 * std::fabs(v) + 1e-6 * std::fabs(want) + 1e-30) << i;
      }
      vm.unary(F::Gelu, x.data(), y.data(), n, 0, 0);
      for (int64_t i = 0; i < n; i++) {
        const double v = x[i], want = 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
        ASSERT_NEAR(y[i], want, 5e-7 * 0.5 * std::fabs(v) + 2e-7 * std::fabs(want) + 1e-30) << i;
      }
    }
    // NaN stays NaN through Clamp and LeakyRelu (as through the register stage), HardSigmoid
    // and HardSwish (np.clip in ONNX's reference; ONNX Runtime too).
    const float nan = std::numeric_limits<float>::quiet_NaN();
    float in[1] = {nan}, out[1];
    vm.unary(kernels::UnaryFn::HardSigmoid, in, out, 1, 0.2f, 0.5f);
    EXPECT_TRUE(std::isnan(out[0]));
    vm.unary(kernels::UnaryFn::HardSwish, in, out, 1, 0, 0);
    EXPECT_TRUE(std::isnan(out[0]));
    vm.unary(kernels::UnaryFn::Clamp, in, out, 1, 0.0f, 6.0f);
    EXPECT_TRUE(std::isnan(out[0]));
    vm.unary(kernels::UnaryFn::LeakyRelu, in, out, 1, 0.1f, 0);
    EXPECT_TRUE(std::isnan(out[0]));
  }
}

// The activations added as post steps / vectorized ops (Elu, Selu, Celu, Softplus, Mish, Log,
// and the exact ones) against the reference formulas in double, every ISA: values from a dense
// sweep, small |x| (where exp(x) - 1 would cancel: Elu's expm1 must not), large |x| (where exp
// overflows or underflows) and the special values. Bounds: 1e-6 relative plus 1e-30 absolute for
// the exp / log based ones (measured: <= 4e-7 on AVX2 and SSE2); bitwise for Abs, Neg, Sqrt,
// Reciprocal, Softsign and ThresholdedRelu.
TEST(KernelsVecMath, MoreActivationsLikeTheReference) {
  using F = kernels::UnaryFn;
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x = sweep(-30.0f, 30.0f, 20011);
  for (int i = 1; i <= 400; i++) {
    const float t = std::ldexp(1.0f, -i / 20) * (1.0f + static_cast<float>(i % 7) / 8);
    x.push_back(t);
    x.push_back(-t);
  }
  for (float v : {0.4999f, 0.5f, -0.5f, -0.5001f, 20.0f, 21.0f, 87.0f, 88.5f, 89.0f, 100.0f,
                  1000.0f, -87.0f, -88.5f, -89.0f, -100.0f, -1000.0f, 3.0e38f, -3.0e38f})
    x.push_back(v);
  const auto n = static_cast<int64_t>(x.size());
  std::vector<float> y(x.size()), pos(x.size());
  for (size_t i = 0; i < x.size(); i++) pos[i] = std::fabs(x[i]) + (i % 3 == 0 ? 1e-38f : 0.0f);
  auto close = [](double got, double want) {
    if (std::isnan(want)) return std::isnan(got);
    if (std::isinf(want)) return got == want;
    return std::fabs(got - want) <= 1e-6 * std::fabs(want) + 1e-30;
  };
  auto softplus = [](double v) {
    return v > 0 ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v));
  };
  for (kernels::Isa isa : kernels::supported_isas()) {
    SCOPED_TRACE(kernels::isa_name(isa));
    const auto& vm = kernels::vec_math(isa);
    struct Case {
      F fn;
      float alpha, beta;
      double (*ref)(double, double, double);
    };
    const Case cases[] = {
        {F::Elu, 0.7f, 0,
         [](double v, double a, double) { return v >= 0 ? v : a * std::expm1(v); }},
        {F::Selu, 1.67326f, 1.0507f,
         [](double v, double a, double g) { return g * (v > 0 ? v : a * std::expm1(v)); }},
        {F::Celu, 1.3f, 0,
         [](double v, double a, double) { return v > 0 ? v : a * std::expm1(v / a); }},
    };
    for (const Case& c : cases) {
      vm.unary(c.fn, x.data(), y.data(), n, c.alpha, c.beta);
      for (int64_t i = 0; i < n; i++)
        ASSERT_TRUE(close(y[i], c.ref(x[i], c.alpha, c.beta)))
            << kernels::unary_fn_name(c.fn) << " " << x[i] << ": " << y[i];
    }
    vm.unary(F::Softplus, x.data(), y.data(), n, 0, 0);
    for (int64_t i = 0; i < n; i++)
      ASSERT_TRUE(close(y[i], softplus(x[i])) || (x[i] < -87 && std::fabs(y[i]) < 2e-38))
          << "Softplus " << x[i] << ": " << y[i];
    vm.unary(F::Mish, x.data(), y.data(), n, 0, 0);
    for (int64_t i = 0; i < n; i++) {
      const double v = x[i], want = v * std::tanh(softplus(v));
      ASSERT_TRUE(close(y[i], want) || (v < -87 && std::fabs(y[i]) < 1e-30))
          << "Mish " << x[i] << ": " << y[i];
    }
    vm.unary(F::Log, pos.data(), y.data(), n, 0, 0);
    for (int64_t i = 0; i < n; i++) {
      if (flushes_subnormals(isa) && pos[i] < std::numeric_limits<float>::min()) continue;
      const double want = std::log(static_cast<double>(pos[i]));
      ASSERT_TRUE(close(y[i], want) || std::fabs(y[i] - want) <= 1e-7)
          << "Log " << pos[i] << ": " << y[i];
    }
    vm.unary(F::Abs, x.data(), y.data(), n, 0, 0);
    for (int64_t i = 0; i < n; i++) ASSERT_TRUE(same_or_flushed(isa, y[i], std::fabs(x[i]))) << i;
    vm.unary(F::Neg, x.data(), y.data(), n, 0, 0);
    for (int64_t i = 0; i < n; i++) ASSERT_TRUE(same_or_flushed(isa, y[i], -x[i])) << i;
    vm.unary(F::Sqrt, pos.data(), y.data(), n, 0, 0);
    for (int64_t i = 0; i < n; i++) {
      // A flushing ISA reads a subnormal input as 0 (its square root, 1e-19, is normal).
      if (flushes_subnormals(isa) && pos[i] < std::numeric_limits<float>::min()) continue;
      ASSERT_TRUE(same_or_flushed(isa, y[i], std::sqrt(pos[i]))) << pos[i];
    }
    vm.unary(F::Reciprocal, x.data(), y.data(), n, 0, 0);
    for (int64_t i = 0; i < n; i++)
      ASSERT_TRUE(same_or_flushed(isa, y[i], 1.0f / x[i], std::fabs(x[i]) < 1.2e-38f)) << x[i];
    vm.unary(F::Softsign, x.data(), y.data(), n, 0, 0);
    for (int64_t i = 0; i < n; i++)
      ASSERT_TRUE(
          same_or_flushed(isa, y[i], x[i] / (1.0f + std::fabs(x[i])), std::fabs(x[i]) < 1.2e-38f))
          << x[i];
    vm.unary(F::ThresholdedRelu, x.data(), y.data(), n, 0.5f, 0);
    for (int64_t i = 0; i < n; i++)
      ASSERT_TRUE(same_or_flushed(isa, y[i], x[i] > 0.5f ? x[i] : 0.0f)) << x[i];
    // Special values: NaN stays NaN everywhere; Log of 0, negatives and +inf; Elu and Softplus
    // at the infinities.
    const std::vector<float> sp = {nan, 0.0f, -1.0f, inf, -inf};
    std::vector<float> o(sp.size());
    for (F fn : {F::Elu, F::Selu, F::Celu, F::Softplus, F::Mish, F::Log, F::Abs, F::Neg, F::Sqrt,
                 F::Reciprocal, F::Softsign}) {
      vm.unary(fn, sp.data(), o.data(), 1, 1.0f, 1.0f);
      EXPECT_TRUE(std::isnan(o[0])) << kernels::unary_fn_name(fn);
    }
    vm.unary(F::Log, sp.data(), o.data(), static_cast<int64_t>(sp.size()), 0, 0);
    EXPECT_EQ(o[1], -inf);
    EXPECT_TRUE(std::isnan(o[2]));
    EXPECT_EQ(o[3], inf);
    EXPECT_TRUE(std::isnan(o[4]));
    vm.unary(F::Elu, sp.data(), o.data(), static_cast<int64_t>(sp.size()), 1.0f, 0);
    EXPECT_EQ(o[3], inf);
    EXPECT_EQ(o[4], -1.0f);
    vm.unary(F::Softplus, sp.data(), o.data(), static_cast<int64_t>(sp.size()), 0, 0);
    EXPECT_EQ(o[3], inf);
    EXPECT_LT(o[4], 2e-38f);
  }
}

// HardSwish's x / 6 is computed with an FMA on AVX2 / AVX-512 (kernels/elementwise/
// vec_math_impl.h, swish_lin): bit for bit the reference's x * max(0, min(1, x / 6 + 1/2)) on
// every float. The test sweeps every 257th bit pattern (16.7M values, every exponent) plus the
// corners (infinities, zeros, subnormals, +-3 and +-6 and their neighbours); KILN_EXHAUSTIVE=1
// sweeps all 2^32 (done once on Zen 3: 0 differences).
TEST(KernelsVecMath, HardSwishBitwiseOnEveryFloat) {
  const char* all = std::getenv("KILN_EXHAUSTIVE");
  const uint64_t step = all && std::string(all) == "1" ? 1 : 257;
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> corners = {inf,
                                      -inf,
                                      0.0f,
                                      -0.0f,
                                      1e-45f,
                                      -1e-45f,
                                      1.17549435e-38f,
                                      1.9e-37f,
                                      3.0f,
                                      -3.0f,
                                      6.0f,
                                      -6.0f,
                                      std::nextafter(3.0f, 0.0f),
                                      std::nextafter(-3.0f, 0.0f),
                                      std::nextafter(6.0f, 7.0f),
                                      std::nextafter(-6.0f, -7.0f),
                                      std::numeric_limits<float>::max(),
                                      std::numeric_limits<float>::lowest()};
  for (kernels::Isa isa : kernels::supported_isas()) {
    SCOPED_TRACE(kernels::isa_name(isa));
    const auto& vm = kernels::vec_math(isa);
    int64_t bad = 0;
    auto check = [&](const std::vector<float>& x) {
      std::vector<float> y(x.size());
      vm.unary(kernels::UnaryFn::HardSwish, x.data(), y.data(), static_cast<int64_t>(x.size()), 0,
               0);
      for (size_t i = 0; i < x.size(); i++) {
        const float want = x[i] * std::max(std::min(x[i] / 6.0f + 0.5f, 1.0f), 0.0f);
        uint32_t a, b;
        std::memcpy(&a, &y[i], sizeof(a));
        std::memcpy(&b, &want, sizeof(b));
        if (a != b && !(std::isnan(y[i]) && std::isnan(want)) &&
            !same_or_flushed(isa, y[i], want, std::fpclassify(x[i]) == FP_SUBNORMAL) && bad++ < 5) {
          ADD_FAILURE() << "x = " << x[i] << ": " << y[i] << " instead of " << want;
        }
      }
    };
    check(corners);
    // Chunks of 2^24 patterns (the exhaustive sweep would need 32 GB at once).
    std::vector<float> x;
    for (uint64_t u = 0; u <= 0xffffffffull; u += step) {
      const uint32_t bits = static_cast<uint32_t>(u);
      float v;
      std::memcpy(&v, &bits, sizeof(v));
      x.push_back(v);
      if (x.size() == (size_t{1} << 24)) {
        check(x);
        x.clear();
      }
    }
    check(x);
    EXPECT_EQ(bad, 0);
  }
}

}  // namespace
}  // namespace kiln
