#include "io/tf/tf_tensor.h"

#include <cstring>

#include "base/error.h"
#include "core/run_limits.h"

namespace kiln::tf_io {

using tfproto::DataType;

DatumType datum_type_from_tf(int dtype) {
  if (dtype > 100) dtype -= 100;  // reference types
  switch (dtype) {
    case tfproto::DT_FLOAT:
      return DatumType::F32;
    case tfproto::DT_DOUBLE:
      return DatumType::F64;
    case tfproto::DT_HALF:
      return DatumType::F16;
    case tfproto::DT_BFLOAT16:
      return DatumType::BF16;
    case tfproto::DT_INT8:
      return DatumType::I8;
    case tfproto::DT_INT16:
      return DatumType::I16;
    case tfproto::DT_INT32:
      return DatumType::I32;
    case tfproto::DT_INT64:
      return DatumType::I64;
    case tfproto::DT_UINT8:
      return DatumType::U8;
    case tfproto::DT_UINT16:
      return DatumType::U16;
    case tfproto::DT_UINT32:
      return DatumType::U32;
    case tfproto::DT_UINT64:
      return DatumType::U64;
    case tfproto::DT_BOOL:
      return DatumType::Bool;
    case tfproto::DT_STRING:
      return DatumType::String;
    default:
      break;
  }
  std::string name = tfproto::DataType_IsValid(dtype) ? tfproto::DataType_Name(dtype)
                                                      : "unknown (" + std::to_string(dtype) + ")";
  fail("TensorFlow data type {} is not supported", name);
}

int tf_from_datum_type(DatumType dt) {
  switch (dt) {
    case DatumType::F32:
      return tfproto::DT_FLOAT;
    case DatumType::F64:
      return tfproto::DT_DOUBLE;
    case DatumType::F16:
      return tfproto::DT_HALF;
    case DatumType::BF16:
      return tfproto::DT_BFLOAT16;
    case DatumType::I8:
      return tfproto::DT_INT8;
    case DatumType::I16:
      return tfproto::DT_INT16;
    case DatumType::I32:
      return tfproto::DT_INT32;
    case DatumType::I64:
      return tfproto::DT_INT64;
    case DatumType::U8:
      return tfproto::DT_UINT8;
    case DatumType::U16:
      return tfproto::DT_UINT16;
    case DatumType::U32:
      return tfproto::DT_UINT32;
    case DatumType::U64:
      return tfproto::DT_UINT64;
    case DatumType::Bool:
      return tfproto::DT_BOOL;
    case DatumType::String:
      return tfproto::DT_STRING;
    default:
      break;
  }
  fail("{} tensors have no TensorFlow data type", name_of(dt));
}

std::optional<std::vector<Dim>> dims_from_tf(const tfproto::TensorShapeProto& shape) {
  if (shape.unknown_rank()) return std::nullopt;
  check_rank(shape.dim_size(), "TensorShapeProto");
  std::vector<Dim> dims;
  for (const auto& d : shape.dim()) {
    if (d.size() < 0)
      dims.push_back(Dim::fresh());
    else
      dims.push_back(Dim(d.size()));
  }
  return dims;
}

namespace {

// Fills `count` elements from a typed list: a shorter list repeats its last value.
template <typename T, typename List>
void fill_from_list(T* dst, int64_t count, const List& list, const char* field) {
  const int64_t n = list.size();
  KILN_ENSURE(n <= count, "TensorProto: {} has {} values for a tensor of {} elements", field, n,
              count);
  for (int64_t i = 0; i < count; i++) {
    if (n == 0)
      dst[i] = T{};
    else
      dst[i] = static_cast<T>(list.Get(static_cast<int>(std::min(i, n - 1))));
  }
}

}  // namespace

Tensor tensor_from_tf(const tfproto::TensorProto& proto) {
  DatumType dt = datum_type_from_tf(proto.dtype());
  Shape shape;
  for (const auto& d : proto.tensor_shape().dim()) {
    KILN_ENSURE(d.size() >= 0, "TensorProto: negative dimension {}", d.size());
    shape.push_back(d.size());
  }
  KILN_ENSURE(!proto.tensor_shape().unknown_rank(), "TensorProto: constant of unknown rank");
  const int64_t numel = shape_numel(shape);
  if (!proto.tensor_content().empty() && dt != DatumType::String)
    KILN_ENSURE(static_cast<uint64_t>(numel) * size_of(dt) == proto.tensor_content().size(),
                "TensorProto: tensor_content has {} bytes, a {} tensor of shape [{}] needs {}",
                proto.tensor_content().size(), name_of(dt), shape_to_string(shape),
                static_cast<uint64_t>(numel) * size_of(dt));
  KILN_ENSURE(static_cast<uint64_t>(numel) * size_of(dt) <= (uint64_t{1} << 32),
              "TensorProto: constant of shape [{}] is larger than 4 GiB", shape_to_string(shape));
  Tensor t(dt, shape);
  const int64_t count = t.numel();
  if (dt == DatumType::String) {
    const int64_t n = proto.string_val_size();
    KILN_ENSURE(n == count || (n == 1 && count >= 1) || n == 0,
                "TensorProto: {} string values for a tensor of {} elements", n, count);
    auto* dst = t.data<std::string>();
    for (int64_t i = 0; i < count && n > 0; i++)
      dst[i] = proto.string_val(static_cast<int>(std::min(i, n - 1)));
    return t;
  }
  if (!proto.tensor_content().empty()) {
    const std::string& bytes = proto.tensor_content();
    KILN_ENSURE(bytes.size() == t.nbytes(),
                "TensorProto: tensor_content has {} bytes, a {} tensor of shape [{}] needs {}",
                bytes.size(), name_of(dt), shape_to_string(shape), t.nbytes());
    if (!bytes.empty()) std::memcpy(t.raw_data(), bytes.data(), bytes.size());
    if (dt == DatumType::Bool) {
      // A bool byte other than 0 or 1 read as bool is undefined behaviour: nonzero is true.
      auto* b = static_cast<uint8_t*>(t.raw_data());
      for (int64_t i = 0; i < t.numel(); i++) b[i] = b[i] != 0;
    }
    return t;
  }
  switch (dt) {
    case DatumType::F32:
      fill_from_list(t.data<float>(), count, proto.float_val(), "float_val");
      break;
    case DatumType::F64:
      fill_from_list(t.data<double>(), count, proto.double_val(), "double_val");
      break;
    case DatumType::F16: {
      std::vector<uint16_t> bits(static_cast<size_t>(count));
      fill_from_list(bits.data(), count, proto.half_val(), "half_val");
      std::memcpy(t.raw_data(), bits.data(), bits.size() * 2);
      break;
    }
    case DatumType::BF16: {
      std::vector<uint16_t> bits(static_cast<size_t>(count));
      fill_from_list(bits.data(), count, proto.half_val(), "half_val");
      std::memcpy(t.raw_data(), bits.data(), bits.size() * 2);
      break;
    }
    case DatumType::I8:
      fill_from_list(t.data<int8_t>(), count, proto.int_val(), "int_val");
      break;
    case DatumType::I16:
      fill_from_list(t.data<int16_t>(), count, proto.int_val(), "int_val");
      break;
    case DatumType::I32:
      fill_from_list(t.data<int32_t>(), count, proto.int_val(), "int_val");
      break;
    case DatumType::U8:
      fill_from_list(t.data<uint8_t>(), count, proto.int_val(), "int_val");
      break;
    case DatumType::U16:
      fill_from_list(t.data<uint16_t>(), count, proto.int_val(), "int_val");
      break;
    case DatumType::I64:
      fill_from_list(t.data<int64_t>(), count, proto.int64_val(), "int64_val");
      break;
    case DatumType::U32:
      fill_from_list(t.data<uint32_t>(), count, proto.uint32_val(), "uint32_val");
      break;
    case DatumType::U64:
      fill_from_list(t.data<uint64_t>(), count, proto.uint64_val(), "uint64_val");
      break;
    case DatumType::Bool:
      fill_from_list(t.data<bool>(), count, proto.bool_val(), "bool_val");
      break;
    default:  // strings are decoded above; other types never come from a TF dtype
      break;
  }
  return t;
}

tfproto::TensorProto tensor_to_tf(const Tensor& tensor) {
  tfproto::TensorProto proto;
  proto.set_dtype(static_cast<DataType>(tf_from_datum_type(tensor.dtype())));
  for (int64_t d : tensor.shape()) proto.mutable_tensor_shape()->add_dim()->set_size(d);
  if (tensor.dtype() == DatumType::String) {
    for (const auto& s : tensor.values<std::string>()) proto.add_string_val(s);
  } else {
    proto.set_tensor_content(
        std::string(static_cast<const char*>(tensor.raw_data()), tensor.nbytes()));
  }
  return proto;
}

}  // namespace kiln::tf_io
