// Tensor: a dense, contiguous, row-major array of one DatumType in 64-byte aligned storage.
// Copies are cheap and share storage (like a shared_ptr); clone() makes a deep copy. A view
// (reshaped() or slice_outer()) shares the storage of the tensor it comes from.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/error.h"
#include "core/datum_type.h"

namespace kiln {

using Shape = std::vector<int64_t>;

// Product of the dims (1 for a scalar). Throws on negative dims or overflow past 2^62.
int64_t shape_numel(std::span<const int64_t> shape);
// "1,3,224,224" (empty string for a scalar).
std::string shape_to_string(std::span<const int64_t> shape);
// Row-major strides, in elements.
std::vector<int64_t> contiguous_strides(std::span<const int64_t> shape);

inline constexpr size_t kTensorAlignment = 64;

// Owned, aligned memory for `count` elements of one type (strings are constructed in place),
// or plain-data memory borrowed from the caller (Tensor::borrow).
class Storage {
 public:
  Storage(DatumType dt, size_t count);
  // Borrows `bytes` bytes at `data` (plain-data types): never freed, never charged to the
  // memory budget.
  Storage(DatumType dt, void* data, size_t bytes);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return data_; }
  size_t capacity_bytes() const { return bytes_; }
  DatumType datum_type() const { return dt_; }
  bool borrowed() const { return borrowed_; }

 private:
  DatumType dt_;
  size_t count_;
  size_t bytes_;
  void* data_;
  bool borrowed_ = false;
};

class Tensor {
 public:
  Tensor() = default;  // the null tensor: no type, no storage
  // Zero-filled (empty strings for String) tensor of that type and shape.
  Tensor(DatumType dt, Shape shape);

  template <typename T>
  static Tensor from_vector(Shape shape, const std::vector<T>& values);
  // A tensor over caller memory, no copy: `nbytes` must be the shape's size and `data` aligned
  // to the element size (plain-data types only). The caller keeps the memory alive and
  // unchanged while any tensor sharing it lives; kiln never frees it. Ops never write into
  // their inputs, so a borrowed input is only read.
  static Tensor borrow(DatumType dt, Shape shape, void* data, size_t nbytes);
  // Whether borrow() accepts these arguments (false where it would throw).
  static bool can_borrow(DatumType dt, const Shape& shape, const void* data, size_t nbytes);
  template <typename T>
  static Tensor scalar(T value) {
    return from_vector<T>({}, std::vector<T>{value});
  }

  bool is_null() const { return storage_ == nullptr; }
  DatumType dtype() const { return dt_; }
  const Shape& shape() const { return shape_; }
  size_t rank() const { return shape_.size(); }
  int64_t dim(size_t axis) const { return shape_.at(axis); }
  int64_t numel() const { return numel_; }
  size_t nbytes() const { return static_cast<size_t>(numel_) * size_of(dt_); }

  void* raw_data() { return data_ptr(); }
  const void* raw_data() const { return data_ptr(); }
  template <typename T>
  T* data() {
    check_type(datum_type_of<T>);
    return static_cast<T*>(data_ptr());
  }
  template <typename T>
  const T* data() const {
    check_type(datum_type_of<T>);
    return static_cast<const T*>(data_ptr());
  }
  template <typename T>
  std::span<const T> values() const {
    return {data<T>(), static_cast<size_t>(numel_)};
  }
  template <typename T>
  std::span<T> values_mut() {
    return {data<T>(), static_cast<size_t>(numel_)};
  }

  // Element `index` (flat, row-major) converted to double / int64 (numeric and bool only).
  double value_as_double(int64_t index) const;
  int64_t value_as_i64(int64_t index) const;
  // All elements converted to int64 (numeric and bool only): for shape-like inputs.
  std::vector<int64_t> to_i64_vector() const;

  // A view with another shape of the same element count, sharing storage.
  Tensor reshaped(Shape shape) const;
  // A view of rows [begin, end) along axis 0, sharing storage.
  Tensor slice_outer(int64_t begin, int64_t end) const;
  // A deep copy with its own storage.
  Tensor clone() const;
  // A new tensor with each element converted (numeric <-> numeric and bool; C++ conversion
  // semantics, float -> int truncates toward zero; NaN -> bool is true).
  Tensor cast_to(DatumType dt) const;

  // Makes this tensor a contiguous tensor of that type and shape, reusing its storage when it
  // is the only owner (or the storage is borrowed: caller memory lent to be written) and the
  // storage is large enough (no allocation in steady state).
  // Contents are unspecified afterwards.
  void reset(DatumType dt, const Shape& shape);

  // Makes this tensor a view of `base`'s storage, `offset_bytes` past base's first byte, with
  // this type and shape (plain-data types only; must fit in base's storage). Reuses this
  // tensor's shape buffer, so it does not allocate once that has grown to the rank.
  void assign_view(const Tensor& base, size_t offset_bytes, DatumType dt, const Shape& shape);
  // Releases the storage (this becomes null) but keeps the shape buffer for later reuse.
  void drop_storage() {
    storage_.reset();
    offset_bytes_ = 0;
    numel_ = 0;
    shape_.clear();
  }
  // The address of the storage's first byte (nullptr for the null tensor): which buffer a
  // tensor lives in, for memory planning.
  const void* storage_base() const { return storage_ ? storage_->data() : nullptr; }
  // Bytes of storage from this tensor's first element to the storage's end.
  size_t storage_bytes_from_data() const {
    return storage_ ? storage_->capacity_bytes() - offset_bytes_ : 0;
  }

  bool shares_storage_with(const Tensor& other) const { return storage_ == other.storage_; }
  // True when the storage is caller memory (Tensor::borrow).
  bool is_borrowed() const { return storage_ && storage_->borrowed(); }
  // True when both have the same type, shape and elements (NaN never equals NaN here).
  bool equals(const Tensor& other) const;
  // "1,2,f32 [0.5, 1, ...]": for messages and tests, at most max_values elements.
  std::string to_string(size_t max_values = 8) const;

 private:
  void check_type(DatumType requested) const;
  void* data_ptr() const {
    return storage_ ? static_cast<char*>(storage_->data()) + offset_bytes_ : nullptr;
  }

  DatumType dt_ = DatumType::F32;
  Shape shape_;
  int64_t numel_ = 0;
  std::shared_ptr<Storage> storage_;
  size_t offset_bytes_ = 0;
};

template <typename T>
Tensor Tensor::from_vector(Shape shape, const std::vector<T>& values) {
  Tensor t(datum_type_of<T>, std::move(shape));
  KILN_ENSURE(static_cast<int64_t>(values.size()) == t.numel(),
              "tensor of shape [{}] needs {} values, got {}", shape_to_string(t.shape()), t.numel(),
              values.size());
  T* dst = t.data<T>();
  for (size_t i = 0; i < values.size(); i++) dst[i] = values[i];
  return t;
}

}  // namespace kiln
