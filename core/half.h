// f16 (IEEE binary16) and bf16 (bfloat16) storage types; arithmetic goes through float.
#pragma once

#include <cstdint>
#include <cstring>

namespace kiln {

float f16_bits_to_float(uint16_t bits);
uint16_t float_to_f16_bits(float value);  // round to nearest even

struct f16 {
  uint16_t bits = 0;
  f16() = default;
  explicit f16(float v) : bits(float_to_f16_bits(v)) {}
  static f16 from_bits(uint16_t b) {
    f16 h;
    h.bits = b;
    return h;
  }
  operator float() const { return f16_bits_to_float(bits); }
};

struct bf16 {
  uint16_t bits = 0;
  bf16() = default;
  explicit bf16(float v) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) {
      bits = static_cast<uint16_t>((u >> 16) | 0x40);  // quiet NaN
    } else {
      uint32_t rounding = 0x7fffu + ((u >> 16) & 1u);  // round to nearest even
      bits = static_cast<uint16_t>((u + rounding) >> 16);
    }
  }
  static bf16 from_bits(uint16_t b) {
    bf16 h;
    h.bits = b;
    return h;
  }
  operator float() const {
    uint32_t u = static_cast<uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
};

}  // namespace kiln
