// The element types narrower than a byte or with an 8-bit float layout (ONNX IR 9-12):
// float8 E4M3FN / E4M3FNUZ / E5M2 / E5M2FNUZ / E8M0, float4 E2M1, int4 / uint4, int2 / uint2.
// In memory each element takes one byte (sub-byte integers sign- or zero-extended, float4 in
// the low nibble); files (TensorProto, .npy, NNEF .dat) pack 4-bit and 2-bit types densely.
// Arithmetic goes through float (float types) or int (integer types).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace kiln {

enum class MiniFloat : uint8_t { E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ, E8M0, E2M1 };

// The bits of `bits` as a float (NaN for the NaN encodings; E8M0 0xFF is NaN).
float minifloat_to_float(MiniFloat format, uint8_t bits);

// The ONNX Cast-25 conversion to `format`, rounding to nearest even: with `saturate`, values
// (and infinities) past the largest finite value become it; without, they become NaN (or
// infinity for E5M2). E2M1 always saturates (it has no NaN or infinity; NaN gives +6 like
// ONNX's reference). E8M0 rounds as `e8m0_round` says (0 up, 1 down, 2 nearest with ties up);
// saturated, 0 gives its smallest value 2^-127.
uint8_t float_to_minifloat(MiniFloat format, float value, bool saturate = true, int e8m0_round = 0);

// Dense packing of sub-byte elements (`bits` = 4 or 2) as ONNX stores them: element 0 in the
// least significant bits of byte 0. `packed_bytes` rounds up; the unused high bits are zero.
size_t packed_bytes(int bits, int64_t count);
void pack_sub_byte(int bits, const uint8_t* elements, int64_t count, uint8_t* packed);
// The inverse; `sign_extend` for int4 / int2 (float4 keeps its 4 bits in the low nibble).
void unpack_sub_byte(int bits, bool sign_extend, const uint8_t* packed, int64_t count,
                     uint8_t* elements);

template <MiniFloat F>
struct minifloat {
  static constexpr MiniFloat format = F;
  uint8_t bits = 0;
  minifloat() = default;
  explicit minifloat(float v) : bits(float_to_minifloat(F, v)) {}
  static minifloat from_bits(uint8_t b) {
    minifloat m;
    m.bits = b;
    return m;
  }
  operator float() const { return minifloat_to_float(F, bits); }
};

using f8e4m3fn = minifloat<MiniFloat::E4M3FN>;
using f8e4m3fnuz = minifloat<MiniFloat::E4M3FNUZ>;
using f8e5m2 = minifloat<MiniFloat::E5M2>;
using f8e5m2fnuz = minifloat<MiniFloat::E5M2FNUZ>;
using f8e8m0 = minifloat<MiniFloat::E8M0>;
using f4e2m1 = minifloat<MiniFloat::E2M1>;

// A sub-byte integer of `Bits` bits, held sign- or zero-extended in one byte. Construction
// from a wider integer keeps the low bits (two's complement wrap, as ONNX casts between
// integer types do).
template <bool Signed, int Bits>
struct narrow_int {
  using storage = std::conditional_t<Signed, int8_t, uint8_t>;
  storage value = 0;
  narrow_int() = default;
  explicit narrow_int(int64_t v) : value(wrap(v)) {}
  static storage wrap(int64_t v) {
    uint64_t low = static_cast<uint64_t>(v) & ((uint64_t{1} << Bits) - 1);
    if constexpr (Signed) {
      if (low & (uint64_t{1} << (Bits - 1)))
        return static_cast<storage>(int64_t(low) - (1 << Bits));
    }
    return static_cast<storage>(low);
  }
  static constexpr int min() { return Signed ? -(1 << (Bits - 1)) : 0; }
  static constexpr int max() { return Signed ? (1 << (Bits - 1)) - 1 : (1 << Bits) - 1; }
  operator int() const { return value; }
};

using i4 = narrow_int<true, 4>;
using u4 = narrow_int<false, 4>;
using i2 = narrow_int<true, 2>;
using u2 = narrow_int<false, 2>;

template <typename T>
inline constexpr bool is_minifloat_v = false;
template <MiniFloat F>
inline constexpr bool is_minifloat_v<minifloat<F>> = true;
template <typename T>
inline constexpr bool is_narrow_int_v = false;
template <bool S, int B>
inline constexpr bool is_narrow_int_v<narrow_int<S, B>> = true;
template <typename T>
inline constexpr bool is_narrow_v = is_minifloat_v<T> || is_narrow_int_v<T>;

}  // namespace kiln
