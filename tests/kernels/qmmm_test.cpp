// Int8 packed matrix multiply (kernels/quant/qmmm.h): every kernel this CPU runs (generic, AVX2,
// AVX-512BW, AVX-512 VNNI both sides, NEON) against the i64 reference, on random shapes with odd
// sizes and edges, u8/s8 operands, per-lane and per-tensor zero points, every output type and
// epilogue feature (stage 0 offsets, scales, biases, clamp, requantize).
//
// Tolerances: I32 outputs are exact (integer sums). F32 outputs: relative 1e-6 (the vectorized
// stage may contract a multiply and an add into one FMA; the scalar reference rounds twice).
// U8 / I8 outputs: within one step everywhere and exact on at least 99% of the elements (an FMA
// can move a value sitting on a rounding tie by one ulp, which flips that one output by a step;
// every real bug -- a zero point, a lane, an edge, a saturation -- moves far more elements).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <iterator>
#include <random>
#include <vector>

#include "base/isa.h"
#include "kernels/aligned_buffer.h"
#include "kernels/quant/qmmm.h"

namespace {

using kiln::kernels::Epilogue;
using kiln::kernels::OutputType;
using kiln::kernels::QFormat;
using kiln::kernels::QMicroKernel;
using kiln::kernels::QOperand;

struct Operand {
  std::vector<uint8_t> bytes;
  std::vector<int32_t> zp;
  QOperand q;
};

// lanes x k, lane-major (stride_lane = k), or k-major when `k_major`.
Operand random_operand(std::mt19937& rng, int64_t lanes, int64_t k, bool is_signed, int zp_mode,
                       bool k_major) {
  Operand o;
  std::uniform_int_distribution<int> byte(0, 255);
  o.bytes.resize(static_cast<size_t>(lanes * k));
  for (auto& b : o.bytes) b = static_cast<uint8_t>(byte(rng));
  std::uniform_int_distribution<int> zd(is_signed ? -128 : 0, is_signed ? 127 : 255);
  if (zp_mode == 1) o.zp = {zd(rng)};
  if (zp_mode == 2) {
    o.zp.resize(static_cast<size_t>(lanes));
    for (auto& z : o.zp) z = zd(rng);
  }
  o.q.data = o.bytes.data();
  o.q.is_signed = is_signed;
  o.q.stride_lane = k_major ? 1 : k;
  o.q.stride_k = k_major ? lanes : 1;
  o.q.zp = o.zp.empty() ? nullptr : o.zp.data();
  o.q.zp_per_lane = zp_mode == 2;
  return o;
}

size_t out_bytes(OutputType t) {
  return t == OutputType::U8 || t == OutputType::I8 ? 1 : 4;
}

void check_kernel(const QMicroKernel& kern, std::mt19937& rng, int64_t m, int64_t n, int64_t k,
                  OutputType out, int features, int threads) {
  SCOPED_TRACE(testing::Message() << kern.name << " m=" << m << " n=" << n << " k=" << k
                                  << " out=" << static_cast<int>(out) << " features=" << features
                                  << " threads=" << threads);
  const bool dot = kern.format == QFormat::Dot4;
  std::uniform_int_distribution<int> coin(0, 1), zmode(0, 2);
  // Dot4: the side read as s8 must be s8 with zero point 0; the other side anything.
  const bool a_signed = dot ? (kern.a_unsigned ? coin(rng) == 1 : true) : coin(rng) == 1;
  const bool b_signed = dot ? (kern.a_unsigned ? true : coin(rng) == 1) : coin(rng) == 1;
  const int a_zmode = dot && !kern.a_unsigned ? 0 : zmode(rng);
  const int b_zmode = dot && kern.a_unsigned ? 0 : (dot ? coin(rng) : zmode(rng));
  // A Dot4 unsigned side's zero point must be per tensor (the correction is per signed lane).
  Operand a = random_operand(rng, m, k, a_signed,
                             dot && kern.a_unsigned ? std::min(a_zmode, 1) : a_zmode, false);
  Operand b = random_operand(rng, n, k, b_signed, b_zmode, coin(rng) == 1);

  std::vector<int32_t> row_off(static_cast<size_t>(m)), col_off(static_cast<size_t>(n));
  std::uniform_int_distribution<int32_t> od(-20000, 20000);
  for (auto& v : row_off) v = od(rng);
  for (auto& v : col_off) v = od(rng);
  const float typical = 5500.0f * std::sqrt(static_cast<float>(std::max<int64_t>(k, 1)));
  std::uniform_real_distribution<float> sd(40.0f / typical, 120.0f / typical);
  std::vector<float> row_scale(static_cast<size_t>(m)), col_scale(static_cast<size_t>(n));
  std::vector<float> row_bias(static_cast<size_t>(m)), col_bias(static_cast<size_t>(n));
  for (auto& v : row_scale) v = sd(rng);
  for (auto& v : col_scale) v = sd(rng) * typical / 80.0f;
  std::uniform_real_distribution<float> bd(-30, 30);
  for (auto& v : row_bias) v = bd(rng);
  for (auto& v : col_bias) v = bd(rng);

  Epilogue ep;
  ep.output = out;
  if (features & 1) ep.row_offset = row_off.data();
  if (features & 2) ep.col_offset = col_off.data();
  if (out != OutputType::I32) {
    if (features & 4) ep.col_scale = col_scale.data();
    ep.row_scale = row_scale.data();
    if (features & 8) ep.row_bias = row_bias.data();
    if (features & 16) ep.col_bias = col_bias.data();
    if (features & 32) ep.min = 0;
    if (features & 64) ep.max = 40;
    ep.out_zero_point = out == OutputType::U8 ? 100 : (out == OutputType::I8 ? -7 : 0);
  }

  // The reference sees the true zero points; a Dot4 kernel's packing ignores the unsigned side's,
  // whose correction the caller adds per signed lane to the offsets (as the ops do).
  Epilogue ep_kernel = ep;
  std::vector<int32_t> corr_rows = row_off, corr_cols = col_off;
  if (dot) {
    const bool a_is_unsigned_side = kern.a_unsigned;
    const Operand& u = a_is_unsigned_side ? a : b;
    const int32_t z =
        kiln::kernels::qdot_zero_point(kern, u.q.is_signed, u.zp.empty() ? 0 : u.zp[0]);
    if (a_is_unsigned_side) {
      if (!(features & 2)) std::fill(corr_cols.begin(), corr_cols.end(), 0);
      kiln::kernels::qadd_dot_correction(kern, b.q, n, k, z, corr_cols.data());
      ep_kernel.col_offset = corr_cols.data();
    } else {
      if (!(features & 1)) std::fill(corr_rows.begin(), corr_rows.end(), 0);
      kiln::kernels::qadd_dot_correction(kern, a.q, m, k, z, corr_rows.data());
      ep_kernel.row_offset = corr_rows.data();
    }
  }

  kiln::kernels::AlignedFloats ap((kiln::kernels::qpacked_bytes(kern, true, m, k) + 3) / 4);
  kiln::kernels::AlignedFloats bp((kiln::kernels::qpacked_bytes(kern, false, n, k) + 3) / 4);
  kiln::kernels::qpack(kern, true, a.q, m, k, ap.data());
  kiln::kernels::qpack(kern, false, b.q, n, k, bp.data());

  const int64_t ldc = n + 5;  // a row stride wider than n: nothing may land between rows
  const size_t bytes = out_bytes(out) * static_cast<size_t>(m * ldc);
  std::vector<uint8_t> got(bytes, 0xAB), want(bytes, 0xAB);
  kiln::kernels::qmmm(kern, m, n, k, ap.data(), bp.data(), ep_kernel, got.data(), ldc, threads);
  kiln::kernels::qmmm_reference(m, n, k, a.q, b.q, ep, want.data(), ldc);

  int64_t off_by_one = 0, total = 0;
  for (int64_t i = 0; i < m; i++) {
    for (int64_t j = 0; j < ldc; j++) {
      const size_t at = static_cast<size_t>(i * ldc + j);
      if (j >= n) {  // the padding between rows is untouched
        for (size_t b0 = 0; b0 < out_bytes(out); b0++)
          ASSERT_EQ(got[at * out_bytes(out) + b0], 0xAB) << "wrote outside C at " << i << "," << j;
        continue;
      }
      total++;
      switch (out) {
        case OutputType::I32: {
          const auto* g = reinterpret_cast<const int32_t*>(got.data());
          const auto* w = reinterpret_cast<const int32_t*>(want.data());
          ASSERT_EQ(g[at], w[at]) << "at " << i << "," << j;
          break;
        }
        case OutputType::F32: {
          const auto* g = reinterpret_cast<const float*>(got.data());
          const auto* w = reinterpret_cast<const float*>(want.data());
          ASSERT_NEAR(g[at], w[at], 1e-6 * std::max(1.0f, std::abs(w[at]))) << i << "," << j;
          break;
        }
        case OutputType::U8:
        case OutputType::I8: {
          const int g = out == OutputType::U8 ? got[at] : static_cast<int8_t>(got[at]);
          const int w = out == OutputType::U8 ? want[at] : static_cast<int8_t>(want[at]);
          ASSERT_LE(std::abs(g - w), 1) << "at " << i << "," << j;
          off_by_one += g != w;
          break;
        }
      }
    }
  }
  EXPECT_LE(off_by_one, std::max<int64_t>(1, total / 100));
}

TEST(Qmmm, EveryKernelMatchesReference) {
  std::mt19937 rng(21);
  const int64_t sizes[][3] = {{1, 1, 1},      {8, 32, 4},     {7, 33, 5},    {13, 47, 27},
                              {16, 49, 144},  {32, 64, 96},   {3, 200, 9},   {40, 17, 1},
                              {9, 5, 0},      {24, 100, 300}, {1000, 3, 37}, {2, 70, 260},
                              {1, 130, 1280}, {5, 40, 33}};
  const OutputType outs[] = {OutputType::U8, OutputType::I8, OutputType::F32, OutputType::I32};
  for (const QMicroKernel* kern : kiln::kernels::supported_q_kernels()) {
    int round = 0;
    for (const auto& s : sizes) {
      for (OutputType out : outs) {
        const int features = static_cast<int>(rng() % 128);
        check_kernel(*kern, rng, s[0], s[1], s[2], out, features, round++ % 3 == 0 ? 2 : 1);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// Full-range values on both sides (the case VPMADDUBSW would saturate on): -128 x -128 and
// 255 x 127 pairs summed, exact in i32.
TEST(Qmmm, ExtremeValuesDoNotSaturate) {
  for (const QMicroKernel* kern : kiln::kernels::supported_q_kernels()) {
    SCOPED_TRACE(kern->name);
    const int64_t m = 9, n = 35, k = 64;
    const bool dot = kern->format == QFormat::Dot4;
    // Wide16: u8 255 x s8 -128 everywhere; Dot4: the same with 255 on the unsigned side.
    std::vector<uint8_t> av(static_cast<size_t>(m * k)), bv(static_cast<size_t>(n * k));
    const bool a_unsigned = dot ? kern->a_unsigned : true;
    std::fill(av.begin(), av.end(), a_unsigned ? uint8_t{255} : uint8_t{0x80});
    std::fill(bv.begin(), bv.end(), a_unsigned ? uint8_t{0x80} : uint8_t{255});
    QOperand a{av.data(), !a_unsigned, k, 1, nullptr, false};
    QOperand b{bv.data(), a_unsigned, k, 1, nullptr, false};
    kiln::kernels::AlignedFloats ap((kiln::kernels::qpacked_bytes(*kern, true, m, k) + 3) / 4);
    kiln::kernels::AlignedFloats bp((kiln::kernels::qpacked_bytes(*kern, false, n, k) + 3) / 4);
    kiln::kernels::qpack(*kern, true, a, m, k, ap.data());
    kiln::kernels::qpack(*kern, false, b, n, k, bp.data());
    Epilogue ep;
    ep.output = OutputType::I32;
    // Dot4: the zero-point side's correction, as the ops add it (SDOT reads that side as s8: 255
    // is packed as 127 with zero point -128; VNNI reads it as is: no correction).
    std::vector<int32_t> offsets(static_cast<size_t>(a_unsigned ? n : m), 0);
    if (dot) {
      const int32_t z = kiln::kernels::qdot_zero_point(*kern, false, 0);
      kiln::kernels::qadd_dot_correction(*kern, a_unsigned ? b : a, a_unsigned ? n : m, k, z,
                                         offsets.data());
      (a_unsigned ? ep.col_offset : ep.row_offset) = offsets.data();
    }
    std::vector<int32_t> c(static_cast<size_t>(m * n));
    kiln::kernels::qmmm(*kern, m, n, k, ap.data(), bp.data(), ep, c.data(), n, 1);
    for (int32_t v : c) ASSERT_EQ(v, 255 * -128 * k);
  }
}

// The matrix-vector sums of every kernel that has them against direct loops: odd n (rows left
// after groups of four) and k (columns left after steps of 16), k shorter than one step, and the
// extreme values (activations +-255 after their zero point, weights -128 / 127) summed over
// 1280 columns: exact in i32.
TEST(Qmmm, GemvMatchesDirectLoops) {
  std::mt19937 rng(33);
  std::uniform_int_distribution<int> act(-255, 255), wt(-128, 127);
  const int64_t shapes[][2] = {{1, 1}, {3, 15}, {4, 16}, {5, 17}, {7, 33}, {1000, 1280}, {13, 300}};
  for (const QMicroKernel* kern : kiln::kernels::supported_q_kernels()) {
    if (!kern->gemv) continue;
    for (const auto& sh : shapes) {
      for (bool extreme : {false, true}) {
        const int64_t n = sh[0], k = sh[1];
        SCOPED_TRACE(testing::Message()
                     << kern->name << " n=" << n << " k=" << k << " extreme=" << extreme);
        std::vector<int16_t> a(static_cast<size_t>(k));
        std::vector<int8_t> w(static_cast<size_t>(n * k));
        for (auto& v : a) v = static_cast<int16_t>(extreme ? 255 : act(rng));
        for (size_t i = 0; i < w.size(); i++)
          w[i] = static_cast<int8_t>(extreme ? (i % 2 ? 127 : -128) : wt(rng));
        std::vector<int32_t> got(static_cast<size_t>(n) + 1, 0x5555);
        kern->gemv(a.data(), w.data(), n, k, got.data());
        ASSERT_EQ(got.back(), 0x5555) << "wrote past n";
        for (int64_t j = 0; j < n; j++) {
          int64_t want = 0;
          for (int64_t kk = 0; kk < k; kk++)
            want += int64_t{a[static_cast<size_t>(kk)]} * w[static_cast<size_t>(j * k + kk)];
          ASSERT_EQ(got[static_cast<size_t>(j)], want) << "row " << j;
        }
      }
    }
  }
}

// The scalar requantizing store (what every path is compared with) against its definition:
// multiply, the fused clamp, then the output range, round half to even, add the zero point --
// with fused clamps inside, across and outside the output range (where one clamp to the
// intersection would differ from two) and sums on and around every bound.
TEST(Qmmm, RequantizedStoreIsTheTwoClampDefinition) {
  const float scale = 0.5f;
  struct Range {
    float min, max;
  };
  const Range ranges[] = {{0.f, 6.f},    {-20.f, 300.f}, {-300.f, -200.f}, {300.f, 400.f},
                          {-3.5f, 2.5f}, {5.f, 5.f},     {-1e9f, 1e9f}};
  for (OutputType out : {OutputType::U8, OutputType::I8}) {
    const bool is_signed = out == OutputType::I8;
    for (int32_t zp : {0, 7, -9}) {
      if (!is_signed && zp < 0) continue;
      for (const Range& r : ranges) {
        Epilogue ep;
        ep.output = out;
        ep.out_zero_point = zp;
        ep.min = r.min;
        ep.max = r.max;
        std::vector<float> rs = {scale};
        ep.row_scale = rs.data();
        for (int32_t acc = -700; acc <= 700; acc++) {
          uint8_t got = 0;
          kiln::kernels::qstore_one(acc, kiln::kernels::qtile_args(ep, &got, 1, 0, 0), 0, 0);
          float v = static_cast<float>(acc) * scale;
          v = std::min(std::max(v, r.min), r.max);
          const float lo = static_cast<float>((is_signed ? -128 : 0) - zp);
          const float hi = static_cast<float>((is_signed ? 127 : 255) - zp);
          v = std::min(std::max(v, lo), hi);
          const int32_t q = static_cast<int32_t>(std::nearbyint(v)) + zp;
          const uint8_t want = static_cast<uint8_t>(is_signed ? static_cast<int8_t>(q) : q);
          ASSERT_EQ(got, want) << "acc " << acc << " range " << r.min << "," << r.max << " zp "
                               << zp << " signed " << is_signed;
        }
      }
    }
  }
}

TEST(Qmmm, DefaultKernelFollowsActiveIsa) {
  const QMicroKernel& k = kiln::kernels::default_q_kernel(true, false);
  EXPECT_EQ(k.isa, kiln::active_isa()) << k.name;
}

}  // namespace

namespace {

// A depthwise geometry: plane, kernel, strides, dilations, padding (top, left, bottom, right).
struct DwCase {
  int64_t h, w, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr;
};

kiln::kernels::QDepthwisePlane plane_of(const DwCase& c) {
  return {c.h,
          c.w,
          (c.h + c.pt + c.pb - c.dh * (c.kh - 1) - 1) / c.sh + 1,
          (c.w + c.pl + c.pr - c.dw * (c.kw - 1) - 1) / c.sw + 1,
          c.kh,
          c.kw,
          c.sh,
          c.sw,
          c.dh,
          c.dw,
          c.pt,
          c.pl};
}

// Random geometries appended to `all` until it holds `count`: planes of 1 to max_dim, kernels of
// 1 to max_k, strides 1 to 3, dilations 1 and 2, padding 0 to 3, each kernel fitting its padded
// plane.
void add_random_cases(std::mt19937& rng, std::vector<DwCase>& all, size_t count, int max_dim,
                      int max_k) {
  std::uniform_int_distribution<int> dim(1, max_dim), ks(1, max_k), st(1, 3), dl(1, 2), pd(0, 3);
  while (all.size() < count) {
    DwCase c{dim(rng), dim(rng), ks(rng), ks(rng), st(rng), st(rng),
             dl(rng),  dl(rng),  pd(rng), pd(rng), pd(rng), pd(rng)};
    if (c.h + c.pt + c.pb < c.dh * (c.kh - 1) + 1 || c.w + c.pl + c.pr < c.dw * (c.kw - 1) + 1)
      continue;
    all.push_back(c);
  }
}

testing::Message describe(const DwCase& c) {
  return testing::Message() << c.h << "x" << c.w << " k" << c.kh << "x" << c.kw << " s" << c.sh
                            << "," << c.sw << " d" << c.dh << "," << c.dw << " p" << c.pt << ","
                            << c.pl << "," << c.pb << "," << c.pr;
}

// The depthwise plane of every kernel against direct loops: odd and random planes, kernels,
// strides 1 to 3, dilation, asymmetric padding, u8 and s8 inputs. Integer sums: exact; the
// requantized u8 / i8 planes: exactly the scalar epilogue of those sums.
TEST(QDepthwise, EveryKernelMatchesDirectLoops) {
  std::mt19937 rng(7);
  const DwCase cases[] = {
      {7, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
      {8, 8, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1},
      {5, 17, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
      {6, 11, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2},
      {9, 13, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2},
      {1, 40, 1, 7, 1, 1, 1, 1, 0, 3, 0, 3},
      {2, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
      // Long rows (many vectors per row: 3x3 strides 1 and 2, dilated), a 17-tap kernel, 2x2
      // with stride 2 along rows only, and a plane smaller than its kernel (all padding).
      {6, 112, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
      {5, 113, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
      {7, 37, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2},
      {3, 40, 1, 17, 1, 1, 1, 1, 0, 8, 0, 8},
      {4, 9, 2, 2, 1, 2, 1, 1, 0, 1, 1, 0},
      {2, 2, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2},
      {9, 50, 3, 5, 1, 3, 1, 1, 1, 2, 1, 2}};
  // Random geometries: odd and tiny planes (rows shorter than one vector, 7 and 14 wide as
  // mobilenet's last stages), kernels 1 to 7 wide, strides 1 to 3, dilations, uneven padding.
  std::vector<DwCase> all(std::begin(cases), std::end(cases));
  all.push_back({7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1});
  all.push_back({14, 14, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1});
  all.push_back({28, 28, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1});
  all.push_back({1, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1});
  all.push_back({1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0});
  // The flat layout (rows back to back in one run of vectors): mobilenet's stride-2 planes with
  // their bottom/right padding, a 56-wide plane, rows of 9 and 15 (a vector spans rows), a 5x5
  // stride-2 plane (row phases of a tall kernel) and run-time tap counts through the pairs (4,
  // 15, 49 taps).
  all.push_back({14, 14, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1});
  all.push_back({15, 15, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1});
  all.push_back({56, 56, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1});
  all.push_back({9, 9, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0});
  all.push_back({11, 15, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2});
  all.push_back({6, 10, 2, 2, 1, 1, 1, 1, 0, 0, 1, 1});
  all.push_back({4, 30, 3, 5, 1, 1, 1, 1, 1, 2, 1, 2});
  all.push_back({12, 12, 7, 7, 1, 1, 1, 1, 3, 3, 3, 3});
  add_random_cases(rng, all, std::size(cases) + 13 + 40, 40, 7);
  std::uniform_int_distribution<int> byte(0, 255), wd(-255, 255);
  for (const QMicroKernel* kern : kiln::kernels::supported_q_kernels()) {
    for (const DwCase& c : all) {
      for (bool is_signed : {false, true}) {
        SCOPED_TRACE(describe(c) << " " << kern->name << " signed " << is_signed);
        const kiln::kernels::QDepthwisePlane g = plane_of(c);
        std::vector<uint8_t> x(static_cast<size_t>(c.h * c.w));
        for (auto& v : x) v = static_cast<uint8_t>(byte(rng));
        std::vector<int32_t> wt(static_cast<size_t>(c.kh * c.kw));
        for (auto& v : wt) v = wd(rng);
        const int32_t zx = is_signed ? -5 : 131;
        std::vector<int32_t> got(static_cast<size_t>(g.oh * g.ow) + 1, 0x5555);
        std::vector<int64_t> scratch(kiln::kernels::qdepthwise_scratch_bytes(g) / 8 + 1);
        std::vector<int32_t> acc(static_cast<size_t>(g.oh * g.ow));
        const int64_t n = g.oh * g.ow;
        Epilogue sums;
        sums.output = OutputType::I32;
        // First another plane of the same geometry, then x reusing its padded copy's border.
        std::vector<uint8_t> other(x.size());
        for (auto& v : other) v = static_cast<uint8_t>(byte(rng));
        kern->depthwise(g, other.data(), is_signed, zx, wt.data(),
                        kiln::kernels::qtile_args(sums, got.data(), n, 0, 0), acc.data(),
                        scratch.data(), false);
        kern->depthwise(g, x.data(), is_signed, zx, wt.data(),
                        kiln::kernels::qtile_args(sums, got.data(), n, 0, 0), acc.data(),
                        scratch.data(), true);
        ASSERT_EQ(got.back(), 0x5555) << "wrote past the plane";
        for (int64_t oy = 0; oy < g.oh; oy++) {
          for (int64_t ox = 0; ox < g.ow; ox++) {
            int64_t want = 0;
            for (int64_t ky = 0; ky < c.kh; ky++)
              for (int64_t kx = 0; kx < c.kw; kx++) {
                const int64_t iy = oy * c.sh - c.pt + ky * c.dh, ix = ox * c.sw - c.pl + kx * c.dw;
                if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;
                const uint8_t b = x[static_cast<size_t>(iy * c.w + ix)];
                const int32_t v = is_signed ? static_cast<int8_t>(b) : b;
                want += (v - zx) * wt[static_cast<size_t>(ky * c.kw + kx)];
              }
            ASSERT_EQ(got[static_cast<size_t>(oy * g.ow + ox)], want) << oy << "," << ox;
          }
        }
        // Requantized in the kernel (u8 and i8, with and without a clamp): as the scalar
        // epilogue of the sums, element by element, exactly (no add to contract into an FMA).
        for (OutputType out : {OutputType::U8, OutputType::I8}) {
          for (bool clamp : {false, true}) {
            std::vector<float> scale = {0.013f};
            std::vector<int32_t> offset = {77};
            Epilogue ep;
            ep.output = out;
            ep.out_zero_point = out == OutputType::U8 ? 3 : -7;
            ep.row_scale = scale.data();
            ep.row_offset = offset.data();
            if (clamp) {
              ep.min = -20;
              ep.max = 90;
            }
            std::vector<uint8_t> q(static_cast<size_t>(n) + 1, 0x55), one(static_cast<size_t>(n));
            kern->depthwise(g, x.data(), is_signed, zx, wt.data(),
                            kiln::kernels::qtile_args(ep, q.data(), n, 0, 0), acc.data(),
                            scratch.data(), clamp);
            ASSERT_EQ(q.back(), 0x55) << "wrote past the plane";
            const auto t = kiln::kernels::qtile_args(ep, one.data(), n, 0, 0);
            for (int64_t j = 0; j < n; j++)
              kiln::kernels::qstore_one(got[static_cast<size_t>(j)], t, 0, static_cast<int>(j));
            for (int64_t j = 0; j < n; j++)
              ASSERT_EQ(q[static_cast<size_t>(j)], one[static_cast<size_t>(j)])
                  << j << " clamp " << clamp;
          }
        }
      }
    }
  }
}

// The channel-block kernel (a lane per channel, for small planes) against the per-plane kernel
// of the same ISA, channel by channel: bitwise for u8 / i8 outputs with and without a clamp, i32
// sums and f32 outputs; 1, lanes - 1 and lanes channels of planes that are not adjacent in
// memory, each channel with its own weights, offset and multiplier; nothing written past the
// block's planes. Geometries: mobilenet's 7x7 / 14x14 planes (stride 1 and 2), 5x5 and 7x7
// kernels, dilation, 1-D rows, a plane smaller than its kernel, and random ones.
TEST(QDepthwise, ChannelBlocksMatchPerPlane) {
  std::mt19937 rng(11);
  std::vector<DwCase> all = {
      {7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},   {14, 14, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
      {14, 14, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1}, {15, 15, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
      {7, 7, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2},   {9, 9, 7, 7, 1, 1, 1, 1, 3, 3, 3, 3},
      {9, 13, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2},  {1, 40, 1, 7, 1, 1, 1, 1, 0, 3, 0, 3},
      {2, 2, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2},   {1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},
      {8, 8, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0},   {4, 9, 2, 2, 1, 2, 1, 1, 0, 1, 1, 0}};
  add_random_cases(rng, all, 40, 20, 5);
  std::uniform_int_distribution<int> byte(0, 255), wd(-255, 255), off(-3000, 3000);
  std::uniform_real_distribution<float> sc(0.001f, 0.05f);
  for (const QMicroKernel* kern : kiln::kernels::supported_q_kernels()) {
    const int64_t lanes = kern->dw_lanes;
    for (const DwCase& c : all) {
      const kiln::kernels::QDepthwisePlane g = plane_of(c);
      const int64_t nt = c.kh * c.kw, plane = g.oh * g.ow, in_plane = c.h * c.w + 5;
      for (int64_t nch : {int64_t{1}, lanes - 1, lanes}) {
        if (nch < 1) continue;
        for (bool is_signed : {false, true}) {
          SCOPED_TRACE(describe(c)
                       << " " << kern->name << " channels " << nch << " signed " << is_signed);
          std::vector<uint8_t> x(static_cast<size_t>(nch * in_plane));
          for (auto& v : x) v = static_cast<uint8_t>(byte(rng));
          std::vector<int32_t> wt(static_cast<size_t>(nch * nt)), offsets(static_cast<size_t>(nch));
          for (auto& v : wt) v = wd(rng);
          for (auto& v : offsets) v = off(rng);
          std::vector<float> scales(static_cast<size_t>(nch));
          for (auto& v : scales) v = sc(rng);
          const int32_t zx = is_signed ? 9 : 117;
          std::vector<int64_t> plane_scratch(kiln::kernels::qdepthwise_scratch_bytes(g) / 8 + 1);
          std::vector<int32_t> acc(static_cast<size_t>(plane));
          kiln::kernels::AlignedFloats block_scratch(
              (kiln::kernels::qdepthwise_channels_scratch_bytes(g) + 3) / 4);
          for (int variant = 0; variant < 6; variant++) {
            Epilogue ep;
            ep.output = variant < 2    ? OutputType::U8
                        : variant < 4  ? OutputType::I8
                        : variant == 4 ? OutputType::I32
                                       : OutputType::F32;
            ep.out_zero_point = ep.output == OutputType::U8 ? 5 : -3;
            if (ep.output != OutputType::I32) ep.row_scale = scales.data();
            ep.row_offset = offsets.data();
            if (variant % 2 == 1 && variant < 4) {
              ep.min = -30;
              ep.max = 70;
            }
            const size_t esize = variant < 4 ? 1 : 4;
            std::vector<uint8_t> want(static_cast<size_t>(nch * plane) * esize),
                got(want.size() + 64, 0xA5);
            for (int64_t ch = 0; ch < nch; ch++)
              kern->depthwise(g, x.data() + ch * in_plane, is_signed, zx, wt.data() + ch * nt,
                              kiln::kernels::qtile_args(ep, want.data(), plane, ch, 0), acc.data(),
                              plane_scratch.data(), false);
            kern->depthwise_channels(g, x.data(), in_plane, is_signed, zx, wt.data(), nch,
                                     kiln::kernels::qtile_args(ep, got.data(), plane, 0, 0),
                                     block_scratch.data());
            for (size_t i = 0; i < want.size(); i++)
              ASSERT_EQ(got[i], want[i]) << "byte " << i << " variant " << variant;
            for (size_t i = want.size(); i < got.size(); i++)
              ASSERT_EQ(got[i], 0xA5) << "wrote past the planes, variant " << variant;
          }
        }
      }
    }
  }
}

// Extreme values through every depthwise kernel: full-range bytes (u8 255 / s8 -128) with the
// widest weights a zero point can leave (+-255), 3x3 and 5x5 on rows of one to several vector
// pairs and an odd vector count (the paired-tap x86 path and its single-vector tail). Every tap
// pair sums to +-2 x 255 x 255 in i32, exact; the integer sums must equal the direct loops.
TEST(QDepthwise, ExtremeValuesAreExact) {
  for (const QMicroKernel* kern : kiln::kernels::supported_q_kernels()) {
    for (int64_t ksize : {3, 5}) {
      for (int64_t w : {7, 16, 40, 57}) {
        for (bool is_signed : {false, true}) {
          SCOPED_TRACE(testing::Message()
                       << kern->name << " k" << ksize << " w" << w << " signed " << is_signed);
          const int64_t h = 5, pad = ksize / 2;
          kiln::kernels::QDepthwisePlane g{h, w, h, w, ksize, ksize, 1, 1, 1, 1, pad, pad};
          const uint8_t byte = is_signed ? uint8_t{0x80} : uint8_t{255};
          std::vector<uint8_t> x(static_cast<size_t>(h * w), byte);
          // Alternating signs along the taps, every magnitude 255.
          std::vector<int32_t> wt(static_cast<size_t>(ksize * ksize));
          for (size_t t = 0; t < wt.size(); t++) wt[t] = t % 3 == 1 ? 255 : -255;
          const int32_t zx = 0;
          const int64_t n = h * w;
          std::vector<int32_t> got(static_cast<size_t>(n) + 1, 0x5555), acc(static_cast<size_t>(n));
          std::vector<int64_t> scratch(kiln::kernels::qdepthwise_scratch_bytes(g) / 8 + 1);
          Epilogue sums;
          sums.output = OutputType::I32;
          kern->depthwise(g, x.data(), is_signed, zx, wt.data(),
                          kiln::kernels::qtile_args(sums, got.data(), n, 0, 0), acc.data(),
                          scratch.data(), false);
          ASSERT_EQ(got.back(), 0x5555) << "wrote past the plane";
          const int32_t v = is_signed ? -128 : 255;
          for (int64_t oy = 0; oy < h; oy++)
            for (int64_t ox = 0; ox < w; ox++) {
              int64_t want = 0;
              for (int64_t ky = 0; ky < ksize; ky++)
                for (int64_t kx = 0; kx < ksize; kx++) {
                  const int64_t iy = oy - pad + ky, ix = ox - pad + kx;
                  if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
                  want += static_cast<int64_t>(v) * wt[static_cast<size_t>(ky * ksize + kx)];
                }
              ASSERT_EQ(got[static_cast<size_t>(oy * w + ox)], want) << oy << "," << ox;
            }
        }
      }
    }
  }
}

}  // namespace
