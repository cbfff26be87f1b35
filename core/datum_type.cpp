#include "core/datum_type.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "base/error.h"
#include "core/map_value.h"
#include "core/sequence.h"

namespace kiln {

size_t size_of(DatumType dt) {
  switch (dt) {
    case DatumType::F64:
    case DatumType::I64:
    case DatumType::U64:
      return 8;
    case DatumType::F32:
    case DatumType::I32:
    case DatumType::U32:
      return 4;
    case DatumType::F16:
    case DatumType::BF16:
    case DatumType::I16:
    case DatumType::U16:
      return 2;
    case DatumType::I8:
    case DatumType::U8:
    case DatumType::Bool:
    case DatumType::F8E4M3FN:
    case DatumType::F8E4M3FNUZ:
    case DatumType::F8E5M2:
    case DatumType::F8E5M2FNUZ:
    case DatumType::F8E8M0:
    case DatumType::F4E2M1:
    case DatumType::I4:
    case DatumType::U4:
    case DatumType::I2:
    case DatumType::U2:
      return 1;
    case DatumType::String:
      return sizeof(std::string);
    case DatumType::Sequence:
      return sizeof(SequenceValue);
    case DatumType::Optional:
      return sizeof(OptionalValue);
    case DatumType::Map:
      return sizeof(MapValue);
  }
  return 1;
}

std::string_view name_of(DatumType dt) {
  switch (dt) {
    case DatumType::F32:
      return "f32";
    case DatumType::F64:
      return "f64";
    case DatumType::F16:
      return "f16";
    case DatumType::BF16:
      return "bf16";
    case DatumType::I8:
      return "i8";
    case DatumType::I16:
      return "i16";
    case DatumType::I32:
      return "i32";
    case DatumType::I64:
      return "i64";
    case DatumType::U8:
      return "u8";
    case DatumType::U16:
      return "u16";
    case DatumType::U32:
      return "u32";
    case DatumType::U64:
      return "u64";
    case DatumType::Bool:
      return "bool";
    case DatumType::String:
      return "string";
    case DatumType::Sequence:
      return "seq";
    case DatumType::Optional:
      return "optional";
    case DatumType::F8E4M3FN:
      return "f8e4m3fn";
    case DatumType::F8E4M3FNUZ:
      return "f8e4m3fnuz";
    case DatumType::F8E5M2:
      return "f8e5m2";
    case DatumType::F8E5M2FNUZ:
      return "f8e5m2fnuz";
    case DatumType::F8E8M0:
      return "f8e8m0";
    case DatumType::F4E2M1:
      return "f4e2m1";
    case DatumType::I4:
      return "i4";
    case DatumType::U4:
      return "u4";
    case DatumType::I2:
      return "i2";
    case DatumType::U2:
      return "u2";
    case DatumType::Map:
      return "map";
  }
  return "?";
}

std::optional<DatumType> parse_datum_type(std::string_view text) {
  std::string t(text);
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
  static const std::pair<const char*, DatumType> names[] = {
      {"f32", DatumType::F32},
      {"float", DatumType::F32},
      {"float32", DatumType::F32},
      {"f64", DatumType::F64},
      {"double", DatumType::F64},
      {"float64", DatumType::F64},
      {"f16", DatumType::F16},
      {"float16", DatumType::F16},
      {"half", DatumType::F16},
      {"bf16", DatumType::BF16},
      {"bfloat16", DatumType::BF16},
      {"i8", DatumType::I8},
      {"int8", DatumType::I8},
      {"i16", DatumType::I16},
      {"int16", DatumType::I16},
      {"i32", DatumType::I32},
      {"int32", DatumType::I32},
      {"i64", DatumType::I64},
      {"int64", DatumType::I64},
      {"u8", DatumType::U8},
      {"uint8", DatumType::U8},
      {"u16", DatumType::U16},
      {"uint16", DatumType::U16},
      {"u32", DatumType::U32},
      {"uint32", DatumType::U32},
      {"u64", DatumType::U64},
      {"uint64", DatumType::U64},
      {"bool", DatumType::Bool},
      {"string", DatumType::String},
      {"str", DatumType::String},
      {"f8e4m3fn", DatumType::F8E4M3FN},
      {"float8e4m3fn", DatumType::F8E4M3FN},
      {"f8e4m3fnuz", DatumType::F8E4M3FNUZ},
      {"float8e4m3fnuz", DatumType::F8E4M3FNUZ},
      {"f8e5m2", DatumType::F8E5M2},
      {"float8e5m2", DatumType::F8E5M2},
      {"f8e5m2fnuz", DatumType::F8E5M2FNUZ},
      {"float8e5m2fnuz", DatumType::F8E5M2FNUZ},
      {"f8e8m0", DatumType::F8E8M0},
      {"float8e8m0", DatumType::F8E8M0},
      {"f4e2m1", DatumType::F4E2M1},
      {"float4e2m1", DatumType::F4E2M1},
      {"i4", DatumType::I4},
      {"int4", DatumType::I4},
      {"u4", DatumType::U4},
      {"uint4", DatumType::U4},
      {"i2", DatumType::I2},
      {"int2", DatumType::I2},
      {"u2", DatumType::U2},
      {"uint2", DatumType::U2},
  };
  for (const auto& [n, dt] : names)
    if (t == n) return dt;
  return std::nullopt;
}

bool is_float(DatumType dt) {
  return dt == DatumType::F32 || dt == DatumType::F64 || dt == DatumType::F16 ||
         dt == DatumType::BF16;
}
bool is_signed_int(DatumType dt) {
  return dt == DatumType::I8 || dt == DatumType::I16 || dt == DatumType::I32 ||
         dt == DatumType::I64;
}
bool is_unsigned_int(DatumType dt) {
  return dt == DatumType::U8 || dt == DatumType::U16 || dt == DatumType::U32 ||
         dt == DatumType::U64;
}

bool is_narrow(DatumType dt) {
  return dt >= DatumType::F8E4M3FN && dt <= DatumType::U2;
}
bool is_narrow_float(DatumType dt) {
  return dt >= DatumType::F8E4M3FN && dt <= DatumType::F4E2M1;
}
int bits_of(DatumType dt) {
  switch (dt) {
    case DatumType::I4:
    case DatumType::U4:
    case DatumType::F4E2M1:
      return 4;
    case DatumType::I2:
    case DatumType::U2:
      return 2;
    default:
      return static_cast<int>(size_of(dt) * 8);
  }
}

void throw_not_pod(DatumType dt) {
  fail("operation not supported on {} tensors", name_of(dt));
}
void throw_not_numeric(DatumType dt) {
  fail("arithmetic not supported on {} tensors", name_of(dt));
}

}  // namespace kiln
