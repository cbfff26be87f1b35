#include "io/onnx/tensor_proto.h"

#include <cstring>
#include <filesystem>
#include <fstream>

#include "base/error.h"
#include "core/run_limits.h"

namespace kiln::onnx_io {

using TP = onnx::TensorProto;

std::optional<DatumType> datum_type_from_onnx(int t) {
  switch (t) {
    case TP::FLOAT:
      return DatumType::F32;
    case TP::DOUBLE:
      return DatumType::F64;
    case TP::FLOAT16:
      return DatumType::F16;
    case TP::BFLOAT16:
      return DatumType::BF16;
    case TP::INT8:
      return DatumType::I8;
    case TP::INT16:
      return DatumType::I16;
    case TP::INT32:
      return DatumType::I32;
    case TP::INT64:
      return DatumType::I64;
    case TP::UINT8:
      return DatumType::U8;
    case TP::UINT16:
      return DatumType::U16;
    case TP::UINT32:
      return DatumType::U32;
    case TP::UINT64:
      return DatumType::U64;
    case TP::BOOL:
      return DatumType::Bool;
    case TP::STRING:
      return DatumType::String;
    default:
      break;
  }
  // Types newer than the ONNX 1.12 headers kiln builds with (ONNX IR 9-12 numbering).
  switch (t) {
    case kOnnxFloat8E4M3FN:
      return DatumType::F8E4M3FN;
    case kOnnxFloat8E4M3FNUZ:
      return DatumType::F8E4M3FNUZ;
    case kOnnxFloat8E5M2:
      return DatumType::F8E5M2;
    case kOnnxFloat8E5M2FNUZ:
      return DatumType::F8E5M2FNUZ;
    case kOnnxUint4:
      return DatumType::U4;
    case kOnnxInt4:
      return DatumType::I4;
    case kOnnxFloat4E2M1:
      return DatumType::F4E2M1;
    case kOnnxFloat8E8M0:
      return DatumType::F8E8M0;
    case kOnnxUint2:
      return DatumType::U2;
    case kOnnxInt2:
      return DatumType::I2;
    default:
      return std::nullopt;
  }
}

int onnx_type_from_datum_type(DatumType dt) {
  switch (dt) {
    case DatumType::F32:
      return TP::FLOAT;
    case DatumType::F64:
      return TP::DOUBLE;
    case DatumType::F16:
      return TP::FLOAT16;
    case DatumType::BF16:
      return TP::BFLOAT16;
    case DatumType::I8:
      return TP::INT8;
    case DatumType::I16:
      return TP::INT16;
    case DatumType::I32:
      return TP::INT32;
    case DatumType::I64:
      return TP::INT64;
    case DatumType::U8:
      return TP::UINT8;
    case DatumType::U16:
      return TP::UINT16;
    case DatumType::U32:
      return TP::UINT32;
    case DatumType::U64:
      return TP::UINT64;
    case DatumType::Bool:
      return TP::BOOL;
    case DatumType::String:
      return TP::STRING;
    case DatumType::F8E4M3FN:
      return kOnnxFloat8E4M3FN;
    case DatumType::F8E4M3FNUZ:
      return kOnnxFloat8E4M3FNUZ;
    case DatumType::F8E5M2:
      return kOnnxFloat8E5M2;
    case DatumType::F8E5M2FNUZ:
      return kOnnxFloat8E5M2FNUZ;
    case DatumType::U4:
      return kOnnxUint4;
    case DatumType::I4:
      return kOnnxInt4;
    case DatumType::F4E2M1:
      return kOnnxFloat4E2M1;
    case DatumType::F8E8M0:
      return kOnnxFloat8E8M0;
    case DatumType::U2:
      return kOnnxUint2;
    case DatumType::I2:
      return kOnnxInt2;
    case DatumType::Sequence:
    case DatumType::Optional:
    case DatumType::Map:
      break;
  }
  return TP::UNDEFINED;
}

namespace {

std::string read_external(const TP& proto, const std::string& base_dir, size_t expected) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto& kv : proto.external_data()) {
    if (kv.key() == "location") location = kv.value();
    if (kv.key() == "offset") offset = std::stoll(kv.value());
    if (kv.key() == "length") length = std::stoll(kv.value());
  }
  KILN_ENSURE(!location.empty(), "tensor '{}': external data without a location", proto.name());
  namespace fs = std::filesystem;
  fs::path rel(location);
  KILN_ENSURE(!rel.is_absolute() && rel.lexically_normal().string().rfind("..", 0) != 0,
              "tensor '{}': external data location '{}' points outside the model folder",
              proto.name(), location);
  fs::path path = fs::path(base_dir) / rel;
  std::ifstream in(path, std::ios::binary);
  KILN_ENSURE(in.good(), "tensor '{}': cannot open external data file {}", proto.name(),
              path.string());
  in.seekg(0, std::ios::end);
  int64_t size = in.tellg();
  if (length < 0) length = size - offset;
  KILN_ENSURE(offset >= 0 && offset + length <= size,
              "tensor '{}': external data [{}, +{}) past the end of {} ({} bytes)", proto.name(),
              offset, length, path.string(), size);
  KILN_ENSURE(static_cast<size_t>(length) == expected,
              "tensor '{}': external data has {} bytes, the shape needs {}", proto.name(), length,
              expected);
  std::string data(static_cast<size_t>(length), '\0');
  in.seekg(offset);
  in.read(data.data(), length);
  return data;
}

template <typename T, typename Field>
void copy_field(Tensor& t, const Field& field, const std::string& name) {
  KILN_ENSURE(static_cast<int64_t>(field.size()) == t.numel(),
              "tensor '{}' has {} values for {} elements", name, field.size(), t.numel());
  T* dst = t.data<T>();
  for (int i = 0; i < field.size(); i++) dst[i] = static_cast<T>(field.Get(i));
}

}  // namespace

size_t stored_bytes(const Tensor& t) {
  int bits = bits_of(t.dtype());
  return bits < 8 ? packed_bytes(bits, t.numel()) : t.nbytes();
}

void set_stored_bytes(Tensor& t, std::string_view bytes) {
  int bits = bits_of(t.dtype());
  auto* dst = static_cast<uint8_t*>(t.raw_data());
  if (bits < 8)
    unpack_sub_byte(bits, t.dtype() == DatumType::I4 || t.dtype() == DatumType::I2,
                    reinterpret_cast<const uint8_t*>(bytes.data()), t.numel(), dst);
  else if (!bytes.empty())
    std::memcpy(dst, bytes.data(), bytes.size());
}

std::string stored_bytes_of(const Tensor& t) {
  int bits = bits_of(t.dtype());
  if (bits >= 8) return std::string(static_cast<const char*>(t.raw_data()), t.nbytes());
  std::string out(packed_bytes(bits, t.numel()), '\0');
  pack_sub_byte(bits, static_cast<const uint8_t*>(t.raw_data()), t.numel(),
                reinterpret_cast<uint8_t*>(out.data()));
  return out;
}

namespace {

// Bytes of `numel` elements of `dt` as stored in raw data (sub-byte types packed).
size_t stored_bytes_for(DatumType dt, int64_t numel) {
  int bits = bits_of(dt);
  if (bits < 8) return packed_bytes(bits, numel);
  KILN_ENSURE(numel <= (int64_t{1} << 62) / (bits / 8), "a {} tensor of {} elements is too large",
              name_of(dt), numel);
  return static_cast<size_t>(numel) * static_cast<size_t>(bits / 8);
}

// The number of values the proto's typed data field holds (bytes of int32_data for the narrow
// types) must match what `numel` elements of `dt` need.
void check_value_count(const TP& proto, DatumType dt, int64_t numel) {
  const std::string& name = proto.name();
  auto expect = [&](int64_t have, int64_t need, const char* what) {
    KILN_ENSURE(have == need, "tensor '{}' has {} {} for {} elements", name, have, what, numel);
  };
  if (dt == DatumType::String) return expect(proto.string_data_size(), numel, "strings");
  if (is_narrow(dt))
    return expect(proto.int32_data_size(), static_cast<int64_t>(stored_bytes_for(dt, numel)),
                  "int32_data values");
  switch (dt) {
    case DatumType::F32:
      return expect(proto.float_data_size(), numel, "values");
    case DatumType::F64:
      return expect(proto.double_data_size(), numel, "values");
    case DatumType::I64:
      return expect(proto.int64_data_size(), numel, "values");
    case DatumType::U32:
    case DatumType::U64:
      return expect(proto.uint64_data_size(), numel, "values");
    default:
      return expect(proto.int32_data_size(), numel, "values");
  }
}

}  // namespace

// Every count is checked before the tensor is allocated: a few bytes of proto declaring dims
// [2^28] with no data must not cost a gigabyte first (a fuzzing finding, tests/fuzz/regressions/
// tensor_pb/).
Tensor tensor_from_proto(const TP& proto, const std::string& base_dir) {
  auto dt = datum_type_from_onnx(proto.data_type());
  KILN_ENSURE(dt.has_value(), "tensor '{}' has unsupported ONNX data type {}", proto.name(),
              proto.data_type());
  check_rank(proto.dims_size(), "TensorProto");
  Shape shape(proto.dims().begin(), proto.dims().end());
  for (int64_t d : shape)
    KILN_ENSURE(d >= 0, "tensor '{}' has negative dimension {}", proto.name(), d);
  const std::string& name = proto.name();
  const int64_t numel = shape_numel(shape);
  bool external = proto.data_location() == TP::EXTERNAL;
  if (*dt != DatumType::String && (external || proto.has_raw_data())) {
    size_t need = stored_bytes_for(*dt, numel);
    std::string ext;  // read_external checks the length on file before reading
    const std::string& raw =
        external ? (ext = read_external(proto, base_dir, need)) : proto.raw_data();
    KILN_ENSURE(raw.size() == need, "tensor '{}' has {} bytes of raw data, shape [{}] {} needs {}",
                name, raw.size(), shape_to_string(shape), name_of(*dt), need);
    Tensor t(*dt, shape);
    set_stored_bytes(t, raw);
    if (*dt == DatumType::Bool) {
      // A bool byte other than 0 or 1 read as bool is undefined behaviour: nonzero is true.
      auto* b = static_cast<uint8_t*>(t.raw_data());
      for (int64_t i = 0; i < t.numel(); i++) b[i] = b[i] != 0;
    }
    return t;
  }
  check_value_count(proto, *dt, numel);
  Tensor t(*dt, shape);
  if (*dt == DatumType::String) {
    auto* dst = t.data<std::string>();
    for (int i = 0; i < proto.string_data_size(); i++) dst[i] = proto.string_data(i);
    return t;
  }
  if (is_narrow(*dt)) {
    // int32_data holds one byte per value: a float8's bits, or 2 (4) packed sub-byte elements.
    std::string bytes(stored_bytes(t), '\0');  // == int32_data_size (check_value_count)
    for (size_t i = 0; i < bytes.size(); i++)
      bytes[i] = static_cast<char>(proto.int32_data(static_cast<int>(i)));
    set_stored_bytes(t, bytes);
    return t;
  }
  switch (*dt) {
    case DatumType::F32:
      copy_field<float>(t, proto.float_data(), name);
      break;
    case DatumType::F64:
      copy_field<double>(t, proto.double_data(), name);
      break;
    case DatumType::I64:
      copy_field<int64_t>(t, proto.int64_data(), name);
      break;
    case DatumType::U32:
      copy_field<uint32_t>(t, proto.uint64_data(), name);
      break;
    case DatumType::U64:
      copy_field<uint64_t>(t, proto.uint64_data(), name);
      break;
    case DatumType::I32:
      copy_field<int32_t>(t, proto.int32_data(), name);
      break;
    case DatumType::I16:
      copy_field<int16_t>(t, proto.int32_data(), name);
      break;
    case DatumType::I8:
      copy_field<int8_t>(t, proto.int32_data(), name);
      break;
    case DatumType::U16:
      copy_field<uint16_t>(t, proto.int32_data(), name);
      break;
    case DatumType::U8:
      copy_field<uint8_t>(t, proto.int32_data(), name);
      break;
    case DatumType::Bool:
      copy_field<bool>(t, proto.int32_data(), name);
      break;
    case DatumType::F16:
    case DatumType::BF16: {
      KILN_ENSURE(proto.int32_data_size() == t.numel(), "tensor '{}' has {} values for {} elements",
                  name, proto.int32_data_size(), t.numel());
      auto* dst = static_cast<uint16_t*>(t.raw_data());
      for (int i = 0; i < proto.int32_data_size(); i++)
        dst[i] = static_cast<uint16_t>(proto.int32_data(i));
      break;
    }
    default:
      fail("tensor '{}': unsupported data type", name);
  }
  return t;
}

TP tensor_to_proto(const Tensor& tensor, const std::string& name) {
  KILN_ENSURE(!is_container(tensor.dtype()), "a {} value is not a tensor: it has no TensorProto",
              name_of(tensor.dtype()));
  TP proto;
  proto.set_name(name);
  proto.set_data_type(onnx_type_from_datum_type(tensor.dtype()));
  for (int64_t d : tensor.shape()) proto.add_dims(d);
  if (tensor.dtype() == DatumType::String) {
    for (const auto& s : tensor.values<std::string>()) proto.add_string_data(s);
  } else {
    proto.set_raw_data(stored_bytes_of(tensor));
  }
  return proto;
}

}  // namespace kiln::onnx_io
