#include "core/datum_type.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "base/error.h"
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
      return 1;
    case DatumType::String:
      return sizeof(std::string);
    case DatumType::Sequence:
      return sizeof(SequenceValue);
    case DatumType::Optional:
      return sizeof(OptionalValue);
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
  }
  return "?";
}

std::optional<DatumType> parse_datum_type(std::string_view text) {
  std::string t(text);
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
  static const std::pair<const char*, DatumType> names[] = {
      {"f32", DatumType::F32},    {"float", DatumType::F32},     {"float32", DatumType::F32},
      {"f64", DatumType::F64},    {"double", DatumType::F64},    {"float64", DatumType::F64},
      {"f16", DatumType::F16},    {"float16", DatumType::F16},   {"half", DatumType::F16},
      {"bf16", DatumType::BF16},  {"bfloat16", DatumType::BF16}, {"i8", DatumType::I8},
      {"int8", DatumType::I8},    {"i16", DatumType::I16},       {"int16", DatumType::I16},
      {"i32", DatumType::I32},    {"int32", DatumType::I32},     {"i64", DatumType::I64},
      {"int64", DatumType::I64},  {"u8", DatumType::U8},         {"uint8", DatumType::U8},
      {"u16", DatumType::U16},    {"uint16", DatumType::U16},    {"u32", DatumType::U32},
      {"uint32", DatumType::U32}, {"u64", DatumType::U64},       {"uint64", DatumType::U64},
      {"bool", DatumType::Bool},  {"string", DatumType::String}, {"str", DatumType::String},
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

void throw_not_pod(DatumType dt) {
  fail("operation not supported on {} tensors", name_of(dt));
}
void throw_not_numeric(DatumType dt) {
  fail("arithmetic not supported on {} tensors", name_of(dt));
}

}  // namespace kiln
