#include "core/narrow_types.h"

#include <cmath>
#include <limits>

namespace kiln {

namespace {

struct Layout {
  int exp_bits, man_bits, bias;
  bool fnuz;     // no infinity, no negative zero, NaN is the sign bit alone
  bool has_inf;  // IEEE-like infinities and NaNs in the top exponent (E5M2)
  bool has_nan;  // E2M1 has neither NaN nor infinity
  double max;    // largest finite value
};

Layout layout_of(MiniFloat f) {
  switch (f) {
    case MiniFloat::E4M3FN:
      return {4, 3, 7, false, false, true, 448.0};
    case MiniFloat::E4M3FNUZ:
      return {4, 3, 8, true, false, true, 240.0};
    case MiniFloat::E5M2:
      return {5, 2, 15, false, true, true, 57344.0};
    case MiniFloat::E5M2FNUZ:
      return {5, 2, 16, true, false, true, 57344.0};
    case MiniFloat::E2M1:
      return {2, 1, 1, false, false, false, 6.0};
    case MiniFloat::E8M0:
      break;
  }
  return {8, 0, 127, false, false, true, 0x1p127};
}

uint8_t nan_bits(const Layout& l, uint8_t sign) {
  if (l.fnuz) return 0x80;
  if (!l.has_nan) return 0x7;  // E2M1: the largest value (ONNX's reference maps NaN to +6)
  return static_cast<uint8_t>(sign | 0x7F);
}

uint8_t encode_e8m0(float v, bool saturate, int round) {
  if (std::isnan(v)) return 0xFF;
  // Zero and negative values (negative ones undefined in the spec) give the smallest value, or
  // NaN, as ONNX Runtime does.
  if (v <= 0) return saturate ? 0x00 : 0xFF;
  double a = static_cast<double>(v);
  if (std::isinf(a)) return saturate ? 0xFE : 0xFF;
  int exp2 = 0;
  double m = std::frexp(a, &exp2) * 2;  // a = m * 2^(exp2-1), m in [1, 2)
  int e = exp2 - 1;
  if (round == 0 && m > 1) e++;                 // up: away from zero
  if (round == 2 && m >= 1.5) e++;              // nearest, ties up
  if (e > 127) return saturate ? 0xFE : 0xFF;   // 2^127 is the largest value
  if (e < -127) return saturate ? 0x00 : 0xFF;  // 2^-127 the smallest
  return static_cast<uint8_t>(e + 127);
}

}  // namespace

float minifloat_to_float(MiniFloat format, uint8_t bits) {
  if (format == MiniFloat::E8M0) {
    if (bits == 0xFF) return std::numeric_limits<float>::quiet_NaN();
    return std::ldexp(1.0f, int(bits) - 127);
  }
  Layout l = layout_of(format);
  int width = 1 + l.exp_bits + l.man_bits;
  bits &= static_cast<uint8_t>((1u << width) - 1);
  bool negative = (bits >> (width - 1)) & 1;
  int exp_field = (bits >> l.man_bits) & ((1 << l.exp_bits) - 1);
  int man = bits & ((1 << l.man_bits) - 1);
  float nan = std::numeric_limits<float>::quiet_NaN();
  if (l.fnuz && bits == 0x80) return nan;
  int top = (1 << l.exp_bits) - 1;
  if (l.has_inf && exp_field == top) {
    if (man != 0) return negative ? -nan : nan;
    return negative ? -std::numeric_limits<float>::infinity()
                    : std::numeric_limits<float>::infinity();
  }
  if (!l.fnuz && !l.has_inf && l.has_nan && exp_field == top && man == (1 << l.man_bits) - 1)
    return negative ? -nan : nan;
  double value = exp_field == 0
                     ? std::ldexp(double(man), 1 - l.bias - l.man_bits)
                     : std::ldexp(double(man + (1 << l.man_bits)), exp_field - l.bias - l.man_bits);
  return static_cast<float>(negative ? -value : value);
}

uint8_t float_to_minifloat(MiniFloat format, float value, bool saturate, int e8m0_round) {
  if (format == MiniFloat::E8M0) return encode_e8m0(value, saturate, e8m0_round);
  Layout l = layout_of(format);
  if (format == MiniFloat::E2M1) saturate = true;
  int width = 1 + l.exp_bits + l.man_bits;
  uint8_t sign = std::signbit(value) ? static_cast<uint8_t>(1u << (width - 1)) : 0;
  if (std::isnan(value)) return nan_bits(l, sign);
  auto overflow = [&]() -> uint8_t {
    if (saturate) return static_cast<uint8_t>(sign | float_to_minifloat(format, float(l.max)));
    if (l.has_inf) return static_cast<uint8_t>(sign | (((1 << l.exp_bits) - 1) << l.man_bits));
    return nan_bits(l, sign);
  };
  double a = std::fabs(static_cast<double>(value));
  if (std::isinf(a)) return overflow();
  int emin = 1 - l.bias;  // exponent of the smallest normal value
  int exp2 = 0;
  std::frexp(a, &exp2);
  int e = a == 0 ? emin : std::max(exp2 - 1, emin);
  double quantum = std::ldexp(1.0, e - l.man_bits);
  double r = std::nearbyint(a / quantum) * quantum;  // round half to even (default mode)
  if (r > l.max) return overflow();
  if (r == 0) return l.fnuz ? 0 : sign;
  std::frexp(r, &exp2);
  int er = exp2 - 1;
  uint32_t exp_field, man;
  if (er < emin) {
    exp_field = 0;
    man = static_cast<uint32_t>(std::ldexp(r, l.man_bits - emin));
  } else {
    exp_field = static_cast<uint32_t>(er + l.bias);
    man = static_cast<uint32_t>(std::ldexp(r, l.man_bits - er)) - (1u << l.man_bits);
  }
  return static_cast<uint8_t>(sign | exp_field << l.man_bits | man);
}

size_t packed_bytes(int bits, int64_t count) {
  int per_byte = 8 / bits;
  return static_cast<size_t>((count + per_byte - 1) / per_byte);
}

void pack_sub_byte(int bits, const uint8_t* elements, int64_t count, uint8_t* packed) {
  int per_byte = 8 / bits;
  uint8_t mask = static_cast<uint8_t>((1u << bits) - 1);
  for (size_t i = 0; i < packed_bytes(bits, count); i++) packed[i] = 0;
  for (int64_t i = 0; i < count; i++)
    packed[i / per_byte] |= static_cast<uint8_t>((elements[i] & mask) << (bits * (i % per_byte)));
}

void unpack_sub_byte(int bits, bool sign_extend, const uint8_t* packed, int64_t count,
                     uint8_t* elements) {
  int per_byte = 8 / bits;
  uint8_t mask = static_cast<uint8_t>((1u << bits) - 1);
  for (int64_t i = 0; i < count; i++) {
    uint8_t v = (packed[i / per_byte] >> (bits * (i % per_byte))) & mask;
    if (sign_extend && (v >> (bits - 1))) v = static_cast<uint8_t>(v | ~mask);
    elements[i] = v;
  }
}

}  // namespace kiln
