// DatumType: the element types a tensor can hold, with their sizes, names and type dispatch.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "core/half.h"
#include "core/narrow_types.h"

namespace kiln {

enum class DatumType : uint8_t {
  F32,
  F64,
  F16,
  BF16,
  I8,
  I16,
  I32,
  I64,
  U8,
  U16,
  U32,
  U64,
  Bool,
  String,
  // Not tensors of numbers: one SequenceValue / OptionalValue per element (core/sequence.h),
  // one MapValue per element (core/map_value.h).
  Sequence,
  Optional,
  // Narrow types (core/narrow_types.h), one byte per element in memory; data movement,
  // comparisons and Cast only (no arithmetic).
  F8E4M3FN,
  F8E4M3FNUZ,
  F8E5M2,
  F8E5M2FNUZ,
  F8E8M0,
  F4E2M1,
  I4,
  U4,
  I2,
  U2,
  Map,  // ONNX map(K, V): a MapValue per element (core/map_value.h)
};

// Bytes per element (String: sizeof(std::string), strings live in their own storage).
size_t size_of(DatumType dt);
// Short lower-case name: f32, i64, bool, string...
std::string_view name_of(DatumType dt);
// Parses a short name (f32, F32, float32, int64...), nullopt when unknown.
std::optional<DatumType> parse_datum_type(std::string_view text);

bool is_float(DatumType dt);       // f16, bf16, f32, f64
bool is_signed_int(DatumType dt);  // i8..i64 (not i4, i2)
bool is_unsigned_int(DatumType dt);
// The narrow types: float8, float4, int4/uint4, int2/uint2.
bool is_narrow(DatumType dt);
bool is_narrow_float(DatumType dt);  // f8e4m3fn, f8e4m3fnuz, f8e5m2, f8e5m2fnuz, f8e8m0, f4e2m1
// Bits per element in files (4 for i4/u4/f4e2m1, 2 for i2/u2, else 8 * size_of).
int bits_of(DatumType dt);
inline bool is_integer(DatumType dt) {
  return is_signed_int(dt) || is_unsigned_int(dt);
}
// Types arithmetic ops take (narrow types are not).
inline bool is_numeric(DatumType dt) {
  return dt != DatumType::String && dt != DatumType::Bool && dt != DatumType::Sequence &&
         dt != DatumType::Optional && dt != DatumType::Map && !is_narrow(dt);
}
// Sequence, Optional and Map: values that are not arrays of scalars.
inline bool is_container(DatumType dt) {
  return dt == DatumType::Sequence || dt == DatumType::Optional || dt == DatumType::Map;
}
// Element types stored as C++ objects (constructed and destroyed in place).
inline bool is_object(DatumType dt) {
  return dt == DatumType::String || is_container(dt);
}

template <typename T>
struct DatumTypeOf;
#define KILN_DATUM(T, DT)                             \
  template <>                                         \
  struct DatumTypeOf<T> {                             \
    static constexpr DatumType value = DatumType::DT; \
  };
KILN_DATUM(float, F32)
KILN_DATUM(double, F64)
KILN_DATUM(f16, F16)
KILN_DATUM(bf16, BF16)
KILN_DATUM(int8_t, I8)
KILN_DATUM(int16_t, I16)
KILN_DATUM(int32_t, I32)
KILN_DATUM(int64_t, I64)
KILN_DATUM(uint8_t, U8)
KILN_DATUM(uint16_t, U16)
KILN_DATUM(uint32_t, U32)
KILN_DATUM(uint64_t, U64)
KILN_DATUM(bool, Bool)
KILN_DATUM(std::string, String)
KILN_DATUM(f8e4m3fn, F8E4M3FN)
KILN_DATUM(f8e4m3fnuz, F8E4M3FNUZ)
KILN_DATUM(f8e5m2, F8E5M2)
KILN_DATUM(f8e5m2fnuz, F8E5M2FNUZ)
KILN_DATUM(f8e8m0, F8E8M0)
KILN_DATUM(f4e2m1, F4E2M1)
KILN_DATUM(i4, I4)
KILN_DATUM(u4, U4)
KILN_DATUM(i2, I2)
KILN_DATUM(u2, U2)
#undef KILN_DATUM

template <typename T>
inline constexpr DatumType datum_type_of = DatumTypeOf<T>::value;

[[noreturn]] void throw_not_pod(DatumType dt);
[[noreturn]] void throw_not_numeric(DatumType dt);

template <typename T>
struct TypeTag {
  using type = T;
};

// Calls f(TypeTag<T>{}) with T the C++ type of dt. Covers every tensor datum type, narrow ones
// included (throws for Sequence and Optional, which element-wise code never handles).
template <typename F>
decltype(auto) dispatch_any(DatumType dt, F&& f) {
  switch (dt) {
    case DatumType::F32:
      return f(TypeTag<float>{});
    case DatumType::F64:
      return f(TypeTag<double>{});
    case DatumType::F16:
      return f(TypeTag<f16>{});
    case DatumType::BF16:
      return f(TypeTag<bf16>{});
    case DatumType::I8:
      return f(TypeTag<int8_t>{});
    case DatumType::I16:
      return f(TypeTag<int16_t>{});
    case DatumType::I32:
      return f(TypeTag<int32_t>{});
    case DatumType::I64:
      return f(TypeTag<int64_t>{});
    case DatumType::U8:
      return f(TypeTag<uint8_t>{});
    case DatumType::U16:
      return f(TypeTag<uint16_t>{});
    case DatumType::U32:
      return f(TypeTag<uint32_t>{});
    case DatumType::U64:
      return f(TypeTag<uint64_t>{});
    case DatumType::Bool:
      return f(TypeTag<bool>{});
    case DatumType::String:
      return f(TypeTag<std::string>{});
    case DatumType::F8E4M3FN:
      return f(TypeTag<f8e4m3fn>{});
    case DatumType::F8E4M3FNUZ:
      return f(TypeTag<f8e4m3fnuz>{});
    case DatumType::F8E5M2:
      return f(TypeTag<f8e5m2>{});
    case DatumType::F8E5M2FNUZ:
      return f(TypeTag<f8e5m2fnuz>{});
    case DatumType::F8E8M0:
      return f(TypeTag<f8e8m0>{});
    case DatumType::F4E2M1:
      return f(TypeTag<f4e2m1>{});
    case DatumType::I4:
      return f(TypeTag<i4>{});
    case DatumType::U4:
      return f(TypeTag<u4>{});
    case DatumType::I2:
      return f(TypeTag<i2>{});
    case DatumType::U2:
      return f(TypeTag<u2>{});
    case DatumType::Sequence:
    case DatumType::Optional:
    case DatumType::Map:
      break;
  }
  throw_not_pod(dt);
  return f(TypeTag<float>{});
}

// Same, for plain-old-data types only (everything but String), narrow ones included.
template <typename F>
decltype(auto) dispatch_pod(DatumType dt, F&& f) {
  switch (dt) {
    case DatumType::F32:
      return f(TypeTag<float>{});
    case DatumType::F64:
      return f(TypeTag<double>{});
    case DatumType::F16:
      return f(TypeTag<f16>{});
    case DatumType::BF16:
      return f(TypeTag<bf16>{});
    case DatumType::I8:
      return f(TypeTag<int8_t>{});
    case DatumType::I16:
      return f(TypeTag<int16_t>{});
    case DatumType::I32:
      return f(TypeTag<int32_t>{});
    case DatumType::I64:
      return f(TypeTag<int64_t>{});
    case DatumType::U8:
      return f(TypeTag<uint8_t>{});
    case DatumType::U16:
      return f(TypeTag<uint16_t>{});
    case DatumType::U32:
      return f(TypeTag<uint32_t>{});
    case DatumType::U64:
      return f(TypeTag<uint64_t>{});
    case DatumType::Bool:
      return f(TypeTag<bool>{});
    case DatumType::F8E4M3FN:
      return f(TypeTag<f8e4m3fn>{});
    case DatumType::F8E4M3FNUZ:
      return f(TypeTag<f8e4m3fnuz>{});
    case DatumType::F8E5M2:
      return f(TypeTag<f8e5m2>{});
    case DatumType::F8E5M2FNUZ:
      return f(TypeTag<f8e5m2fnuz>{});
    case DatumType::F8E8M0:
      return f(TypeTag<f8e8m0>{});
    case DatumType::F4E2M1:
      return f(TypeTag<f4e2m1>{});
    case DatumType::I4:
      return f(TypeTag<i4>{});
    case DatumType::U4:
      return f(TypeTag<u4>{});
    case DatumType::I2:
      return f(TypeTag<i2>{});
    case DatumType::U2:
      return f(TypeTag<u2>{});
    default:
      break;
  }
  throw_not_pod(dt);
  return f(TypeTag<float>{});
}

// Same, for numeric types (no Bool, no String, no narrow type): arithmetic ops dispatch
// through this.
template <typename F>
decltype(auto) dispatch_numeric(DatumType dt, F&& f) {
  switch (dt) {
    case DatumType::F32:
      return f(TypeTag<float>{});
    case DatumType::F64:
      return f(TypeTag<double>{});
    case DatumType::F16:
      return f(TypeTag<f16>{});
    case DatumType::BF16:
      return f(TypeTag<bf16>{});
    case DatumType::I8:
      return f(TypeTag<int8_t>{});
    case DatumType::I16:
      return f(TypeTag<int16_t>{});
    case DatumType::I32:
      return f(TypeTag<int32_t>{});
    case DatumType::I64:
      return f(TypeTag<int64_t>{});
    case DatumType::U8:
      return f(TypeTag<uint8_t>{});
    case DatumType::U16:
      return f(TypeTag<uint16_t>{});
    case DatumType::U32:
      return f(TypeTag<uint32_t>{});
    case DatumType::U64:
      return f(TypeTag<uint64_t>{});
    default:
      break;
  }
  throw_not_numeric(dt);
  return f(TypeTag<float>{});
}

}  // namespace kiln
