// The narrow element types: decoding tables, encoding against an independent nearest-value
// search over every code, the ONNX Cast saturation tables, and sub-byte packing.
#include "core/narrow_types.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "core/datum_type.h"

namespace kiln {
namespace {

const float kInf = std::numeric_limits<float>::infinity();

bool is_nan_code(MiniFloat f, uint8_t bits) {
  return std::isnan(minifloat_to_float(f, bits));
}

int code_count(MiniFloat f) {
  return f == MiniFloat::E2M1 ? 16 : 256;
}

// Reference encoder: the finite code nearest to x (ties: the code with an even last bit, which
// for these formats is the even mantissa), by brute force over all codes. Zeros of either sign
// compare equal, so the callers compare values.
uint8_t nearest_code(MiniFloat f, double x) {
  int best = -1;
  double best_err = 0;
  for (int c = 0; c < code_count(f); c++) {
    float v = minifloat_to_float(f, static_cast<uint8_t>(c));
    if (std::isnan(v) || std::isinf(v)) continue;
    double err = std::fabs(static_cast<double>(v) - x);
    if (best < 0 || err < best_err || (err == best_err && (c & 1) == 0 && (best & 1) == 1)) {
      best = c;
      best_err = err;
    }
  }
  return static_cast<uint8_t>(best);
}

double max_finite(MiniFloat f) {
  double m = 0;
  for (int c = 0; c < code_count(f); c++) {
    float v = minifloat_to_float(f, static_cast<uint8_t>(c));
    if (std::isfinite(v)) m = std::max(m, static_cast<double>(v));
  }
  return m;
}

TEST(NarrowTypes, DecodingTables) {
  EXPECT_EQ(minifloat_to_float(MiniFloat::E4M3FN, 0x7E), 448.0f);
  EXPECT_EQ(minifloat_to_float(MiniFloat::E4M3FN, 0x01), std::ldexp(1.0f, -9));
  EXPECT_EQ(minifloat_to_float(MiniFloat::E4M3FN, 0x38), 1.0f);
  EXPECT_TRUE(std::signbit(minifloat_to_float(MiniFloat::E4M3FN, 0x80)));
  EXPECT_TRUE(is_nan_code(MiniFloat::E4M3FN, 0x7F) && is_nan_code(MiniFloat::E4M3FN, 0xFF));
  EXPECT_EQ(minifloat_to_float(MiniFloat::E4M3FNUZ, 0x7F), 240.0f);
  EXPECT_EQ(minifloat_to_float(MiniFloat::E4M3FNUZ, 0x01), std::ldexp(1.0f, -10));
  EXPECT_TRUE(is_nan_code(MiniFloat::E4M3FNUZ, 0x80));
  EXPECT_EQ(minifloat_to_float(MiniFloat::E5M2, 0x7B), 57344.0f);
  EXPECT_EQ(minifloat_to_float(MiniFloat::E5M2, 0x7C), kInf);
  EXPECT_EQ(minifloat_to_float(MiniFloat::E5M2, 0xFC), -kInf);
  EXPECT_EQ(minifloat_to_float(MiniFloat::E5M2, 0x01), std::ldexp(1.0f, -16));
  EXPECT_TRUE(is_nan_code(MiniFloat::E5M2, 0x7D));
  EXPECT_EQ(minifloat_to_float(MiniFloat::E5M2FNUZ, 0x7F), 57344.0f);
  EXPECT_EQ(minifloat_to_float(MiniFloat::E5M2FNUZ, 0x01), std::ldexp(1.0f, -17));
  EXPECT_TRUE(is_nan_code(MiniFloat::E5M2FNUZ, 0x80));
  const float e2m1[16] = {0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0f, -0.5, -1, -1.5, -2, -3, -4, -6};
  for (int c = 0; c < 16; c++) EXPECT_EQ(minifloat_to_float(MiniFloat::E2M1, c), e2m1[c]) << c;
  EXPECT_EQ(minifloat_to_float(MiniFloat::E8M0, 127), 1.0f);
  EXPECT_EQ(minifloat_to_float(MiniFloat::E8M0, 0), std::ldexp(1.0f, -127));
  EXPECT_EQ(minifloat_to_float(MiniFloat::E8M0, 254), std::ldexp(1.0f, 127));
  EXPECT_TRUE(is_nan_code(MiniFloat::E8M0, 255));
}

TEST(NarrowTypes, EveryCodeRoundTrips) {
  for (MiniFloat f : {MiniFloat::E4M3FN, MiniFloat::E4M3FNUZ, MiniFloat::E5M2, MiniFloat::E5M2FNUZ,
                      MiniFloat::E2M1, MiniFloat::E8M0}) {
    for (int c = 0; c < code_count(f); c++) {
      float v = minifloat_to_float(f, static_cast<uint8_t>(c));
      if (std::isnan(v)) continue;
      for (bool sat : {true, false}) {
        if (sat && std::isinf(v)) continue;  // saturation turns E5M2's infinities into +-max
        EXPECT_EQ(float_to_minifloat(f, v, sat, /*e8m0 nearest*/ 2), c)
            << "format " << int(f) << " code " << c;
      }
    }
  }
}

TEST(NarrowTypes, RoundsToNearestEvenLikeABruteForceSearch) {
  std::mt19937 rng(7);
  for (MiniFloat f : {MiniFloat::E4M3FN, MiniFloat::E4M3FNUZ, MiniFloat::E5M2, MiniFloat::E5M2FNUZ,
                      MiniFloat::E2M1}) {
    const double top = max_finite(f);
    std::vector<double> xs;
    // Random values over the whole range, and the midpoints between neighbouring codes (ties).
    std::uniform_real_distribution<double> exponent(-20, std::log2(top));
    for (int i = 0; i < 4000; i++) xs.push_back((i % 2 ? -1 : 1) * std::exp2(exponent(rng)));
    for (int c = 0; c + 1 < code_count(f); c++) {
      float a = minifloat_to_float(f, static_cast<uint8_t>(c));
      float b = minifloat_to_float(f, static_cast<uint8_t>(c + 1));
      if (std::isfinite(a) && std::isfinite(b)) xs.push_back((static_cast<double>(a) + b) / 2);
    }
    for (double x : xs) {
      float xf = static_cast<float>(x);
      if (std::fabs(xf) > top) continue;
      uint8_t want = nearest_code(f, xf);
      uint8_t got = float_to_minifloat(f, xf, true);
      EXPECT_EQ(minifloat_to_float(f, got), minifloat_to_float(f, want))
          << "format " << int(f) << " x " << xf;
    }
  }
}

// The saturation tables of the ONNX Cast spec (Cast-25).
TEST(NarrowTypes, SaturationTables) {
  struct Row {
    MiniFloat f;
    uint8_t max_code, inf_nosat, minus_inf_nosat;
  };
  const Row rows[] = {{MiniFloat::E4M3FN, 0x7E, 0x7F, 0xFF},
                      {MiniFloat::E4M3FNUZ, 0x7F, 0x80, 0x80},
                      {MiniFloat::E5M2, 0x7B, 0x7C, 0xFC},
                      {MiniFloat::E5M2FNUZ, 0x7F, 0x80, 0x80}};
  for (const Row& r : rows) {
    const float big = 2 * static_cast<float>(max_finite(r.f)) + 100;
    EXPECT_EQ(float_to_minifloat(r.f, kInf, true), r.max_code);
    EXPECT_EQ(float_to_minifloat(r.f, big, true), r.max_code);
    EXPECT_EQ(float_to_minifloat(r.f, -kInf, true), r.max_code | 0x80);
    EXPECT_EQ(float_to_minifloat(r.f, kInf, false), r.inf_nosat);
    EXPECT_EQ(float_to_minifloat(r.f, big, false), r.inf_nosat);
    EXPECT_EQ(float_to_minifloat(r.f, -kInf, false), r.minus_inf_nosat);
    EXPECT_TRUE(std::isnan(minifloat_to_float(r.f, float_to_minifloat(r.f, NAN, true))));
    // -0: kept where the format has it, +0 for the FNUZ formats.
    bool fnuz = r.f == MiniFloat::E4M3FNUZ || r.f == MiniFloat::E5M2FNUZ;
    EXPECT_EQ(float_to_minifloat(r.f, -0.0f, true), fnuz ? 0x00 : 0x80);
  }
  // E4M3FN: 464 is a tie between 448 and 480 (not representable): even goes to 448; 470
  // rounds to 480, past the largest value.
  EXPECT_EQ(float_to_minifloat(MiniFloat::E4M3FN, 464, false), 0x7E);
  EXPECT_EQ(float_to_minifloat(MiniFloat::E4M3FN, 470, false), 0x7F);
  EXPECT_EQ(float_to_minifloat(MiniFloat::E4M3FN, 470, true), 0x7E);
  // E2M1 saturates always; NaN gives +6.
  EXPECT_EQ(float_to_minifloat(MiniFloat::E2M1, 100, false), 0x7);
  EXPECT_EQ(float_to_minifloat(MiniFloat::E2M1, NAN), 0x7);
  EXPECT_EQ(float_to_minifloat(MiniFloat::E2M1, -5.0f), 0xE);  // tie 4 / 6 -> 4
}

TEST(NarrowTypes, E8M0RoundingModes) {
  auto enc = [](float x, bool sat, int mode) {
    return float_to_minifloat(MiniFloat::E8M0, x, sat, mode);
  };
  EXPECT_EQ(enc(3.0f, true, 0), 129);  // up: 4
  EXPECT_EQ(enc(3.0f, true, 1), 128);  // down: 2
  EXPECT_EQ(enc(3.0f, true, 2), 129);  // nearest, 3 = 1.5 * 2 ties up: 4
  EXPECT_EQ(enc(2.9f, true, 2), 128);
  EXPECT_EQ(enc(4.0f, true, 0), 129);   // exact powers stay
  EXPECT_EQ(enc(0.0f, true, 0), 0);     // saturate: the smallest value
  EXPECT_EQ(enc(0.0f, false, 2), 255);  // NaN
  EXPECT_EQ(enc(3e38f, true, 0), 254);
  EXPECT_EQ(enc(3e38f, false, 0), 255);
  EXPECT_EQ(enc(kInf, true, 0), 254);
  EXPECT_EQ(enc(NAN, true, 0), 255);
}

TEST(NarrowTypes, SubByteIntegersWrapAndPack) {
  EXPECT_EQ(int(i4(8)), -8);
  EXPECT_EQ(int(i4(-9)), 7);
  EXPECT_EQ(int(i4(200)), -8);
  EXPECT_EQ(int(u4(17)), 1);
  EXPECT_EQ(int(u4(-1)), 15);
  EXPECT_EQ(int(i2(2)), -2);
  EXPECT_EQ(int(u2(5)), 1);
  const uint8_t elems[5] = {0xF9 /* -7 */, 0x03, 0x0F /* 15 */, 0x00, 0xF8 /* -8 */};
  uint8_t packed[3];
  ASSERT_EQ(packed_bytes(4, 5), 3u);
  pack_sub_byte(4, elems, 5, packed);
  EXPECT_EQ(packed[0], 0x39);  // element 0 in the low nibble
  EXPECT_EQ(packed[1], 0x0F);
  EXPECT_EQ(packed[2], 0x08);  // the unused high nibble is zero
  uint8_t back[5];
  unpack_sub_byte(4, true, packed, 5, back);
  EXPECT_EQ(static_cast<int8_t>(back[0]), -7);
  EXPECT_EQ(static_cast<int8_t>(back[2]), -1);
  EXPECT_EQ(static_cast<int8_t>(back[4]), -8);
  unpack_sub_byte(4, false, packed, 5, back);
  EXPECT_EQ(back[2], 15);
  const uint8_t two[5] = {3, 0, 1, 2, 3};
  uint8_t p2[2];
  ASSERT_EQ(packed_bytes(2, 5), 2u);
  pack_sub_byte(2, two, 5, p2);
  EXPECT_EQ(p2[0], 3 | 0 << 2 | 1 << 4 | 2 << 6);
  EXPECT_EQ(p2[1], 3);
}

TEST(NarrowTypes, DatumTypes) {
  EXPECT_EQ(parse_datum_type("float8e4m3fn"), DatumType::F8E4M3FN);
  EXPECT_EQ(parse_datum_type("int4"), DatumType::I4);
  EXPECT_EQ(name_of(DatumType::F4E2M1), "f4e2m1");
  EXPECT_EQ(size_of(DatumType::U4), 1u);
  EXPECT_EQ(bits_of(DatumType::U4), 4);
  EXPECT_EQ(bits_of(DatumType::I2), 2);
  EXPECT_EQ(bits_of(DatumType::F8E5M2), 8);
  EXPECT_TRUE(is_narrow_float(DatumType::F8E8M0));
  EXPECT_FALSE(is_numeric(DatumType::I4));
  EXPECT_FALSE(is_float(DatumType::F8E4M3FN));
}

}  // namespace
}  // namespace kiln
