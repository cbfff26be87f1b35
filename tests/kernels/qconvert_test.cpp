// The qconvert kernels (kernels/quant/qconvert.h) against scalar references written from the
// ONNX definitions (float division, nearbyint, then the zero point and saturation), under every
// ISA this CPU runs: exact, on every 8-bit input (every pair for add), random floats with
// rounding ties and special values, every length up to a few vectors (the tails) and unaligned
// pointers.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/mmm/mmm.h"
#include "kernels/quant/qconvert.h"

namespace kiln {
namespace {

using kernels::Q8;

// QuantizeLinear as ops/quant/quantize_linear.cpp's general path: round the float quotient
// half to even, add the zero point, saturate (NaN -> the low end).
int32_t ref_quantize(float x, Q8 q) {
  const double lo = q.is_signed ? -128 : 0, hi = q.is_signed ? 127 : 255;
  const double r = std::nearbyint(static_cast<double>(x / q.scale)) + q.zp;
  if (std::isnan(r)) return static_cast<int32_t>(lo);
  return static_cast<int32_t>(std::min(std::max(r, lo), hi));
}
// Never inlined: where the compiler may contract (aarch64 GCC's default -ffp-contract=fast),
// an inlined product would fuse with the caller's sum into one FMA, which the op's chain
// (separate DequantizeLinear and Add) does not do.
[[gnu::noinline]] float ref_dequantize(int32_t v, Q8 q) {
  return static_cast<float>(v - q.zp) * q.scale;
}
int32_t byte_value(const uint8_t* p, size_t i, bool is_signed) {
  return is_signed ? static_cast<int32_t>(static_cast<int8_t>(p[i])) : static_cast<int32_t>(p[i]);
}

// Parameter sets: both types, zero points at the ends and inside the range, scales from tiny to
// large (random ones too).
std::vector<Q8> param_sets(std::mt19937& rng) {
  std::vector<Q8> v = {{0.0039215689f, 0, false}, {0.02f, 128, false}, {0.1f, 255, false},
                       {1.0f, 3, false},          {0.05f, 0, true},    {0.0078125f, -128, true},
                       {3.5f, 127, true},         {1e-6f, 17, false},  {250.0f, -5, true}};
  std::uniform_real_distribution<float> e(-8, 4);
  std::uniform_int_distribution<int> zu(0, 255), zs(-128, 127);
  for (int i = 0; i < 6; i++) {
    const bool s = i % 2 == 1;
    v.push_back({std::exp2(e(rng)), s ? zs(rng) : zu(rng), s});
  }
  return v;
}

TEST(KernelsQConvert, QuantizeMatchesReference) {
  std::mt19937 rng(21);
  const float inf = std::numeric_limits<float>::infinity();
  for (Isa isa : kernels::supported_isas()) {
    SCOPED_TRACE(kernels::isa_name(isa));
    const auto& k = kernels::qconvert(isa);
    for (Q8 q : param_sets(rng)) {
      SCOPED_TRACE(testing::Message()
                   << "scale " << q.scale << " zp " << q.zp << " signed " << q.is_signed);
      // Values around the whole range and beyond, exact rounding ties (k + 1/2) * scale,
      // their neighbours, and specials.
      std::vector<float> x;
      std::normal_distribution<float> nd(0, 1);
      for (int i = 0; i < 3000; i++) x.push_back(nd(rng) * 200 * q.scale);
      for (int t = -300; t <= 300; t++) {
        const float tie = (static_cast<float>(t) + 0.5f) * q.scale;
        x.push_back(tie);
        x.push_back(std::nextafter(tie, inf));
        x.push_back(std::nextafter(tie, -inf));
      }
      for (float s : {0.0f, -0.0f, inf, -inf, std::nanf(""), -std::nanf(""), 1e30f, -1e30f,
                      std::numeric_limits<float>::denorm_min(), 8388608.5f, -4194304.5f})
        x.push_back(s);
      // Every length up to 40 from odd offsets (tails, unaligned), then the whole vector.
      std::vector<uint8_t> y(x.size() + 64);
      for (size_t off = 0; off < 3; off++) {
        for (size_t n = 0; n <= 40; n++) {
          std::fill(y.begin(), y.end(), 0xA5);
          k.quantize(x.data() + off, y.data() + off, static_cast<int64_t>(n), q);
          for (size_t i = 0; i < n; i++)
            ASSERT_EQ(byte_value(y.data(), off + i, q.is_signed), ref_quantize(x[off + i], q))
                << "x " << x[off + i] << " n " << n;
          EXPECT_EQ(y[off + n], 0xA5) << "wrote past n = " << n;
        }
      }
      k.quantize(x.data(), y.data(), static_cast<int64_t>(x.size()), q);
      for (size_t i = 0; i < x.size(); i++)
        ASSERT_EQ(byte_value(y.data(), i, q.is_signed), ref_quantize(x[i], q)) << "x " << x[i];
    }
  }
}

TEST(KernelsQConvert, DequantizeAndRequantizeEveryByte) {
  std::mt19937 rng(22);
  // Every byte, three times over and odd in length (vector body and tail).
  std::vector<uint8_t> x(256 * 3 + 7);
  for (size_t i = 0; i < x.size(); i++) x[i] = static_cast<uint8_t>(i * 7 + 3);
  const auto params = param_sets(rng);
  for (Isa isa : kernels::supported_isas()) {
    SCOPED_TRACE(kernels::isa_name(isa));
    const auto& k = kernels::qconvert(isa);
    for (Q8 xq : params) {
      SCOPED_TRACE(testing::Message() << "x scale " << xq.scale << " zp " << xq.zp);
      for (size_t off : {size_t{0}, size_t{1}}) {
        const size_t n = x.size() - off;
        std::vector<float> f(n + 1, -1.0f);
        k.dequantize(x.data() + off, f.data(), static_cast<int64_t>(n), xq);
        for (size_t i = 0; i < n; i++) {
          const float want = ref_dequantize(byte_value(x.data(), off + i, xq.is_signed), xq);
          ASSERT_EQ(std::memcmp(&f[i], &want, sizeof(float)), 0) << f[i] << " vs " << want;
        }
        EXPECT_EQ(f[n], -1.0f);
        for (Q8 yq : params) {
          std::vector<uint8_t> y(n + 1, 0x5A);
          k.requantize(x.data() + off, y.data(), static_cast<int64_t>(n), xq, yq);
          for (size_t i = 0; i < n; i++) {
            const float d = ref_dequantize(byte_value(x.data(), off + i, xq.is_signed), xq);
            ASSERT_EQ(byte_value(y.data(), i, yq.is_signed), ref_quantize(d, yq))
                << "x " << byte_value(x.data(), off + i, xq.is_signed) << " y scale " << yq.scale
                << " zp " << yq.zp;
          }
          EXPECT_EQ(y[n], 0x5A);
        }
      }
    }
  }
}

TEST(KernelsQConvert, AddEveryPair) {
  std::mt19937 rng(23);
  // Every (a, b) byte pair once, plus a tail of 9.
  const size_t n = 256 * 256 + 9;
  std::vector<uint8_t> a(n), b(n);
  for (size_t i = 0; i < n; i++) {
    a[i] = static_cast<uint8_t>(i & 255);
    b[i] = static_cast<uint8_t>((i >> 8) ^ (i * 31));
  }
  std::uniform_real_distribution<float> e(-9, -2);
  std::uniform_int_distribution<int> zu(0, 255), zs(-128, 127);
  auto random_q = [&](bool s) { return Q8{std::exp2(e(rng)), s ? zs(rng) : zu(rng), s}; };
  for (Isa isa : kernels::supported_isas()) {
    SCOPED_TRACE(kernels::isa_name(isa));
    const auto& k = kernels::qconvert(isa);
    for (int types = 0; types < 8; types++) {
      for (int rep = 0; rep < 3; rep++) {
        const Q8 aq = random_q(types & 1), bq = random_q(types & 2), yq = random_q(types & 4);
        SCOPED_TRACE(testing::Message() << "types " << types << " rep " << rep);
        std::vector<uint8_t> y(n + 1, 0x33);
        k.add(a.data(), b.data(), y.data(), static_cast<int64_t>(n), aq, bq, yq);
        for (size_t i = 0; i < n; i++) {
          const float fa = ref_dequantize(byte_value(a.data(), i, aq.is_signed), aq);
          const float fb = ref_dequantize(byte_value(b.data(), i, bq.is_signed), bq);
          const float sum = fa + fb;
          ASSERT_EQ(byte_value(y.data(), i, yq.is_signed), ref_quantize(sum, yq))
              << "a " << byte_value(a.data(), i, aq.is_signed) << " b "
              << byte_value(b.data(), i, bq.is_signed);
        }
        EXPECT_EQ(y[n], 0x33);
      }
    }
  }
}

TEST(KernelsQConvert, DefaultFollowsActiveIsa) {
  EXPECT_EQ(&kernels::qconvert(), &kernels::qconvert(active_isa()));
}

}  // namespace
}  // namespace kiln
