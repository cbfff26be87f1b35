// kiln::api::Tensor and the data types: a handle on a kiln::Tensor.
#include <cstring>

#include "api/api_internal.h"
#include "io/tensor/tensor_files.h"

namespace kiln::api {

std::string version() {
#ifdef KILN_VERSION
  return KILN_VERSION;
#else
  return "dev";
#endif
}

DatumType to_datum_type(DataType dt) {
  switch (dt) {
    case DataType::F32:
      return DatumType::F32;
    case DataType::F64:
      return DatumType::F64;
    case DataType::F16:
      return DatumType::F16;
    case DataType::I8:
      return DatumType::I8;
    case DataType::I16:
      return DatumType::I16;
    case DataType::I32:
      return DatumType::I32;
    case DataType::I64:
      return DatumType::I64;
    case DataType::U8:
      return DatumType::U8;
    case DataType::U16:
      return DatumType::U16;
    case DataType::U32:
      return DatumType::U32;
    case DataType::U64:
      return DatumType::U64;
    case DataType::Bool:
      return DatumType::Bool;
  }
  fail("unknown data type code {}", static_cast<int>(dt));
}

DataType from_datum_type(DatumType dt, const std::string& what) {
  switch (dt) {
    case DatumType::F32:
      return DataType::F32;
    case DatumType::F64:
      return DataType::F64;
    case DatumType::F16:
      return DataType::F16;
    case DatumType::I8:
      return DataType::I8;
    case DatumType::I16:
      return DataType::I16;
    case DatumType::I32:
      return DataType::I32;
    case DatumType::I64:
      return DataType::I64;
    case DatumType::U8:
      return DataType::U8;
    case DatumType::U16:
      return DataType::U16;
    case DatumType::U32:
      return DataType::U32;
    case DatumType::U64:
      return DataType::U64;
    case DatumType::Bool:
      return DataType::Bool;
    default:
      break;
  }
  fail("{} is of type {}, which the API does not carry (numbers and bools only)", what,
       name_of(dt));
}

const char* data_type_name(DataType dt) {
  return name_of(to_datum_type(dt)).data();
}
size_t data_type_size(DataType dt) {
  return size_of(to_datum_type(dt));
}

Tensor::Tensor() = default;
Tensor::Tensor(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

Tensor::Tensor(DataType dt, const std::vector<int64_t>& shape)
    : impl_(std::make_shared<Impl>(Impl{kiln::Tensor(to_datum_type(dt), shape)})) {}

Tensor::Tensor(DataType dt, const std::vector<int64_t>& shape, const void* data, size_t nbytes) {
  kiln::Tensor t(to_datum_type(dt), shape);
  KILN_ENSURE(nbytes == t.nbytes(), "a {} tensor of shape [{}] holds {} bytes, {} given",
              name_of(t.dtype()), shape_to_string(shape), t.nbytes(), nbytes);
  KILN_ENSURE(data != nullptr || nbytes == 0, "tensor data is a null pointer");
  if (nbytes) std::memcpy(t.raw_data(), data, nbytes);
  impl_ = std::make_shared<Impl>(Impl{std::move(t)});
}

Tensor Tensor::wrap(DataType dt, const std::vector<int64_t>& shape, void* data, size_t nbytes) {
  return guarded(
      [&] { return api::wrap(kiln::Tensor::borrow(to_datum_type(dt), shape, data, nbytes)); });
}

bool Tensor::is_null() const {
  return !impl_ || impl_->tensor.is_null();
}
DataType Tensor::dtype() const {
  KILN_ENSURE(!is_null(), "the null tensor has no type");
  return from_datum_type(impl_->tensor.dtype(), "this tensor");
}
std::vector<int64_t> Tensor::shape() const {
  return is_null() ? Shape{} : impl_->tensor.shape();
}
int64_t Tensor::numel() const {
  return is_null() ? 0 : impl_->tensor.numel();
}
size_t Tensor::nbytes() const {
  return is_null() ? 0 : impl_->tensor.nbytes();
}
const void* Tensor::data() const {
  return is_null() ? nullptr : impl_->tensor.raw_data();
}
void* Tensor::data() {
  return is_null() ? nullptr : impl_->tensor.raw_data();
}
std::string Tensor::to_string(size_t max_values) const {
  return is_null() ? "null" : impl_->tensor.to_string(max_values);
}
void Tensor::check_type(DataType requested) const {
  KILN_ENSURE(!is_null(), "the null tensor has no data");
  KILN_ENSURE(impl_->tensor.dtype() == to_datum_type(requested), "tensor of type {} read as {}",
              name_of(impl_->tensor.dtype()), data_type_name(requested));
}

Tensor read_tensor(const std::string& path) {
  return guarded([&] {
    auto t = io::read_tensor_file(path);
    from_datum_type(t.tensor.dtype(), "'" + path + "'");
    return wrap(std::move(t.tensor));
  });
}

void write_npy(const std::string& path, const Tensor& tensor) {
  guarded([&] {
    KILN_ENSURE(!tensor.is_null(), "write_npy '{}': the null tensor", path);
    io::write_npy(path, unwrap(tensor));
  });
}

}  // namespace kiln::api
