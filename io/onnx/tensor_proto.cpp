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
    case DatumType::Sequence:
    case DatumType::Optional:
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

Tensor tensor_from_proto(const TP& proto, const std::string& base_dir) {
  auto dt = datum_type_from_onnx(proto.data_type());
  KILN_ENSURE(dt.has_value(), "tensor '{}' has unsupported ONNX data type {}", proto.name(),
              proto.data_type());
  check_rank(proto.dims_size(), "TensorProto");
  Shape shape(proto.dims().begin(), proto.dims().end());
  for (int64_t d : shape)
    KILN_ENSURE(d >= 0, "tensor '{}' has negative dimension {}", proto.name(), d);
  Tensor t(*dt, shape);
  const std::string& name = proto.name();
  if (*dt == DatumType::String) {
    KILN_ENSURE(static_cast<int64_t>(proto.string_data_size()) == t.numel(),
                "tensor '{}' has {} strings for {} elements", name, proto.string_data_size(),
                t.numel());
    auto* dst = t.data<std::string>();
    for (int i = 0; i < proto.string_data_size(); i++) dst[i] = proto.string_data(i);
    return t;
  }
  bool external = proto.data_location() == TP::EXTERNAL;
  if (external || proto.has_raw_data()) {
    std::string ext;
    const std::string& raw =
        external ? (ext = read_external(proto, base_dir, t.nbytes())) : proto.raw_data();
    KILN_ENSURE(raw.size() == t.nbytes(),
                "tensor '{}' has {} bytes of raw data, shape [{}] {} needs {}", name, raw.size(),
                shape_to_string(shape), name_of(*dt), t.nbytes());
    if (!raw.empty()) std::memcpy(t.raw_data(), raw.data(), raw.size());
    if (*dt == DatumType::Bool) {
      // A bool byte other than 0 or 1 read as bool is undefined behaviour: nonzero is true.
      auto* b = static_cast<uint8_t*>(t.raw_data());
      for (int64_t i = 0; i < t.numel(); i++) b[i] = b[i] != 0;
    }
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
    proto.set_raw_data(std::string(static_cast<const char*>(tensor.raw_data()), tensor.nbytes()));
  }
  return proto;
}

}  // namespace kiln::onnx_io
