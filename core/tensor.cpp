#include "core/tensor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#include "core/map_value.h"
#include "core/run_limits.h"
#include "core/sequence.h"

namespace kiln {

int64_t shape_numel(std::span<const int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    KILN_ENSURE(d >= 0, "negative dimension {} in shape [{}]", d, shape_to_string(shape));
    if (d != 0 && n > (int64_t{1} << 62) / d)
      fail("shape [{}] is too large (more than 2^62 elements)", shape_to_string(shape));
    n *= d;
  }
  return n;
}

std::string shape_to_string(std::span<const int64_t> shape) {
  return fmt::format("{}", fmt::join(shape, ","));
}

std::vector<int64_t> contiguous_strides(std::span<const int64_t> shape) {
  // Unsigned: the strides of an empty tensor declaring huge dims may wrap (they address nothing);
  // a non-empty tensor's are at most its element count.
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;)
    strides[i - 1] =
        static_cast<int64_t>(static_cast<uint64_t>(strides[i]) * static_cast<uint64_t>(shape[i]));
  return strides;
}

namespace {
// 1 TiB, or half the address space on 32-bit targets (so count * elem cannot wrap).
constexpr uint64_t kMaxStorageBytes = std::min<uint64_t>(uint64_t{1} << 40, SIZE_MAX / 2);

// numel as a size_t element count, checked before the cast: on a 32-bit target 2^40 elements
// would wrap to 0 and allocate nothing instead of failing.
size_t storage_count(int64_t numel, DatumType dt) {
  KILN_ENSURE(numel >= 0 && static_cast<uint64_t>(numel) < kMaxStorageBytes / size_of(dt),
              "tensor of {} {} elements is too large to allocate", numel, name_of(dt));
  return static_cast<size_t>(numel);
}
}  // namespace

Storage::Storage(DatumType dt, size_t count) : dt_(dt), count_(count) {
  size_t elem = size_of(dt);
  KILN_ENSURE(uint64_t{count} < kMaxStorageBytes / elem,
              "tensor of {} {} elements is too large to allocate", count, name_of(dt));
  bytes_ = count * elem;
  size_t alloc = (bytes_ + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment;
  if (alloc == 0) alloc = kTensorAlignment;
  charge_memory(alloc);  // throws past the memory budget (core/run_limits.h)
  data_ = std::aligned_alloc(kTensorAlignment, alloc);
  if (!data_) {
    release_memory(alloc);
    fail("out of memory allocating {} bytes", alloc);
  }
  if (dt == DatumType::String) {
    auto* s = static_cast<std::string*>(data_);
    for (size_t i = 0; i < count; i++) new (s + i) std::string();
  } else if (dt == DatumType::Sequence) {
    auto* s = static_cast<SequenceValue*>(data_);
    for (size_t i = 0; i < count; i++) new (s + i) SequenceValue();
  } else if (dt == DatumType::Optional) {
    auto* s = static_cast<OptionalValue*>(data_);
    for (size_t i = 0; i < count; i++) new (s + i) OptionalValue();
  } else if (dt == DatumType::Map) {
    auto* s = static_cast<MapValue*>(data_);
    for (size_t i = 0; i < count; i++) new (s + i) MapValue();
  } else {
    std::memset(data_, 0, alloc);
  }
}

Storage::Storage(DatumType dt, void* data, size_t bytes)
    : dt_(dt), count_(bytes / size_of(dt)), bytes_(bytes), data_(data), borrowed_(true) {
  KILN_ENSURE(!is_object(dt), "cannot borrow memory for {} elements", name_of(dt));
}

Storage::~Storage() {
  if (borrowed_) return;
  if (dt_ == DatumType::String) {
    auto* s = static_cast<std::string*>(data_);
    for (size_t i = 0; i < count_; i++) s[i].~basic_string();
  } else if (dt_ == DatumType::Sequence) {
    auto* s = static_cast<SequenceValue*>(data_);
    for (size_t i = 0; i < count_; i++) s[i].~SequenceValue();
  } else if (dt_ == DatumType::Optional) {
    auto* s = static_cast<OptionalValue*>(data_);
    for (size_t i = 0; i < count_; i++) s[i].~OptionalValue();
  } else if (dt_ == DatumType::Map) {
    auto* s = static_cast<MapValue*>(data_);
    for (size_t i = 0; i < count_; i++) s[i].~MapValue();
  }
  std::free(data_);
  size_t alloc = (bytes_ + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment;
  release_memory(alloc == 0 ? kTensorAlignment : alloc);
}

namespace {
// Borrowed data must be aligned to its element size (capped at max_align_t's alignment).
size_t borrow_alignment(DatumType dt) {
  return std::min<size_t>(size_of(dt), alignof(std::max_align_t));
}
}  // namespace

bool Tensor::can_borrow(DatumType dt, const Shape& shape, const void* data, size_t nbytes) {
  if (is_object(dt)) return false;
  int64_t numel = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d > 0 && numel > (int64_t{1} << 62) / d)) return false;
    numel *= d;
  }
  if (static_cast<uint64_t>(numel) * size_of(dt) != nbytes) return false;
  if (nbytes == 0) return true;
  return data != nullptr && reinterpret_cast<uintptr_t>(data) % borrow_alignment(dt) == 0;
}

Tensor Tensor::borrow(DatumType dt, Shape shape, void* data, size_t nbytes) {
  Tensor t;
  t.dt_ = dt;
  t.numel_ = shape_numel(shape);
  t.shape_ = std::move(shape);
  size_t need = storage_count(t.numel_, dt) * size_of(dt);
  KILN_ENSURE(nbytes == need, "a {},{} tensor is {} bytes: {} bytes given",
              shape_to_string(t.shape_), name_of(dt), need, nbytes);
  KILN_ENSURE(data != nullptr || nbytes == 0, "a {} byte buffer at NULL", nbytes);
  KILN_ENSURE(reinterpret_cast<uintptr_t>(data) % borrow_alignment(dt) == 0,
              "{} data at {} is not aligned to {} bytes", name_of(dt), data, borrow_alignment(dt));
  t.storage_ = std::make_shared<Storage>(dt, data, nbytes);  // (refuses object types)
  return t;
}

Tensor::Tensor(DatumType dt, Shape shape) : dt_(dt), shape_(std::move(shape)) {
  numel_ = shape_numel(shape_);
  storage_ = std::make_shared<Storage>(dt_, storage_count(numel_, dt_));
}

void Tensor::check_type(DatumType requested) const {
  KILN_ENSURE(storage_, "access to a null tensor");
  KILN_ENSURE(requested == dt_, "tensor holds {} but was read as {}", name_of(dt_),
              name_of(requested));
}

double Tensor::value_as_double(int64_t index) const {
  KILN_ENSURE(index >= 0 && index < numel_, "index {} out of range for {} elements", index, numel_);
  return dispatch_pod(dt_, [&](auto tag) -> double {
    using T = typename decltype(tag)::type;
    return static_cast<double>(static_cast<const T*>(data_ptr())[index]);
  });
}

int64_t Tensor::value_as_i64(int64_t index) const {
  KILN_ENSURE(index >= 0 && index < numel_, "index {} out of range for {} elements", index, numel_);
  return dispatch_pod(dt_, [&](auto tag) -> int64_t {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16> || is_minifloat_v<T>)
      return static_cast<int64_t>(static_cast<float>(static_cast<const T*>(data_ptr())[index]));
    else
      return static_cast<int64_t>(static_cast<const T*>(data_ptr())[index]);
  });
}

std::vector<int64_t> Tensor::to_i64_vector() const {
  std::vector<int64_t> out(static_cast<size_t>(numel_));
  for (int64_t i = 0; i < numel_; i++) out[static_cast<size_t>(i)] = value_as_i64(i);
  return out;
}

Tensor Tensor::reshaped(Shape shape) const {
  int64_t n = shape_numel(shape);
  KILN_ENSURE(n == numel_, "cannot view [{}] ({} elements) as [{}] ({} elements)",
              shape_to_string(shape_), numel_, shape_to_string(shape), n);
  Tensor t = *this;
  t.shape_ = std::move(shape);
  return t;
}

Tensor Tensor::slice_outer(int64_t begin, int64_t end) const {
  KILN_ENSURE(rank() >= 1 && begin >= 0 && begin <= end && end <= shape_[0],
              "bad outer slice [{}, {}) of shape [{}]", begin, end, shape_to_string(shape_));
  Tensor t = *this;
  int64_t inner = shape_[0] == 0 ? 0 : numel_ / shape_[0];
  t.shape_[0] = end - begin;
  t.numel_ = inner * (end - begin);
  t.offset_bytes_ += static_cast<size_t>(begin * inner) * size_of(dt_);
  return t;
}

Tensor Tensor::clone() const {
  if (is_null()) return {};
  Tensor t(dt_, shape_);
  if (dt_ == DatumType::String) {
    const auto* src = data<std::string>();
    auto* dst = t.data<std::string>();
    for (int64_t i = 0; i < numel_; i++) dst[i] = src[i];
  } else if (dt_ == DatumType::Sequence) {
    // Items are never mutated in place: sharing them is a deep copy in effect.
    for (int64_t i = 0; i < numel_; i++) t.data<SequenceValue>()[i] = data<SequenceValue>()[i];
  } else if (dt_ == DatumType::Optional) {
    for (int64_t i = 0; i < numel_; i++) t.data<OptionalValue>()[i] = data<OptionalValue>()[i];
  } else if (dt_ == DatumType::Map) {
    for (int64_t i = 0; i < numel_; i++) t.data<MapValue>()[i] = data<MapValue>()[i];
  } else if (numel_ > 0) {
    std::memcpy(t.data_ptr(), data_ptr(), nbytes());
  }
  return t;
}

namespace {
template <typename To, typename From>
To convert_value(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return static_cast<float>(v) != 0.0f || std::isnan(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, f16> || std::is_same_v<To, bf16> || is_minifloat_v<To>) {
    return To(static_cast<float>(v));
  } else if constexpr (is_narrow_int_v<To>) {
    if constexpr (std::is_integral_v<From> || is_narrow_int_v<From>) {
      return To(static_cast<int64_t>(v));  // keeps the low bits, like integer casts
    } else {
      float f = static_cast<float>(v);
      if (std::isnan(f)) return To(0);
      return To(static_cast<int64_t>(std::clamp(f, float(To::min()), float(To::max()))));
    }
  } else if constexpr (std::is_same_v<From, f16> || std::is_same_v<From, bf16> ||
                       is_minifloat_v<From>) {
    return static_cast<To>(static_cast<float>(v));
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    // Out-of-range float -> int is undefined in C++; saturate instead of trapping.
    if (std::isnan(v)) return To(0);
    if (v >= static_cast<From>(std::numeric_limits<To>::max()))
      return std::numeric_limits<To>::max();
    if (v <= static_cast<From>(std::numeric_limits<To>::lowest()))
      return std::numeric_limits<To>::lowest();
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}
}  // namespace

Tensor Tensor::cast_to(DatumType dt) const {
  if (dt == dt_) return clone();
  Tensor out(dt, shape_);
  dispatch_pod(dt_, [&](auto from_tag) {
    using From = typename decltype(from_tag)::type;
    dispatch_pod(dt, [&](auto to_tag) {
      using To = typename decltype(to_tag)::type;
      const From* src = static_cast<const From*>(data_ptr());
      To* dst = static_cast<To*>(out.data_ptr());
      for (int64_t i = 0; i < numel_; i++) dst[i] = convert_value<To, From>(src[i]);
    });
  });
  return out;
}

void Tensor::reset(DatumType dt, const Shape& shape) {
  int64_t n = shape_numel(shape);
  size_t count = storage_count(n, dt);
  size_t need = count * size_of(dt);
  // Borrowed memory was lent to be written (State's output targets): shared or not, it serves.
  // (A borrowed input is never reset: ops never write their inputs, and a slot that hands an
  // input over is not written in the same run; State drops borrowed storage after each run.)
  bool reusable = storage_ && (storage_.use_count() == 1 || storage_->borrowed()) &&
                  offset_bytes_ == 0 && storage_->capacity_bytes() >= need &&
                  is_object(dt) == is_object(storage_->datum_type()) &&
                  (!is_object(dt) || storage_->datum_type() == dt);
  if (!reusable) {
    storage_ = std::make_shared<Storage>(dt, count);
    offset_bytes_ = 0;
  }
  dt_ = dt;
  shape_.assign(shape.begin(), shape.end());
  numel_ = n;
}

void Tensor::assign_view(const Tensor& base, size_t offset_bytes, DatumType dt,
                         const Shape& shape) {
  KILN_ENSURE(!base.is_null(), "cannot view a null tensor");
  KILN_ENSURE(!is_object(dt) && !is_object(base.dt_), "cannot view {} storage as {}",
              name_of(base.dt_), name_of(dt));
  int64_t n = shape_numel(shape);
  size_t need = static_cast<size_t>(n) * size_of(dt);
  size_t at = base.offset_bytes_ + offset_bytes;
  KILN_ENSURE(at <= base.storage_->capacity_bytes() && need <= base.storage_->capacity_bytes() - at,
              "view of {} bytes at {} past a storage of {} bytes", need, at,
              base.storage_->capacity_bytes());
  if (storage_ != base.storage_) storage_ = base.storage_;
  offset_bytes_ = at;
  dt_ = dt;
  if (&shape != &shape_) shape_.assign(shape.begin(), shape.end());
  numel_ = n;
}

bool Tensor::equals(const Tensor& other) const {
  if (is_null() || other.is_null()) return is_null() == other.is_null();
  if (dt_ != other.dt_ || shape_ != other.shape_) return false;
  if (dt_ == DatumType::String) {
    for (int64_t i = 0; i < numel_; i++)
      if (data<std::string>()[i] != other.data<std::string>()[i]) return false;
    return true;
  }
  if (dt_ == DatumType::Sequence) {
    for (int64_t i = 0; i < numel_; i++) {
      const auto& a = data<SequenceValue>()[i];
      const auto& b = other.data<SequenceValue>()[i];
      if (a.elem_dt != b.elem_dt || a.items.size() != b.items.size()) return false;
      for (size_t k = 0; k < a.items.size(); k++)
        if (!a.items[k].equals(b.items[k])) return false;
    }
    return true;
  }
  if (dt_ == DatumType::Optional) {
    for (int64_t i = 0; i < numel_; i++) {
      const auto& a = data<OptionalValue>()[i];
      const auto& b = other.data<OptionalValue>()[i];
      if (a.elem_dt != b.elem_dt || !a.value.equals(b.value)) return false;
    }
    return true;
  }
  if (dt_ == DatumType::Map) {
    for (int64_t i = 0; i < numel_; i++) {
      const auto& a = data<MapValue>()[i];
      const auto& b = other.data<MapValue>()[i];
      if (a.key_dt != b.key_dt || a.value_dt != b.value_dt || !a.keys.equals(b.keys) ||
          !a.values.equals(b.values))
        return false;
    }
    return true;
  }
  return dispatch_pod(dt_, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* a = static_cast<const T*>(data_ptr());
    const T* b = static_cast<const T*>(other.data_ptr());
    for (int64_t i = 0; i < numel_; i++) {
      if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16> || is_minifloat_v<T>) {
        if (static_cast<float>(a[i]) != static_cast<float>(b[i])) return false;
      } else {
        if (!(a[i] == b[i])) return false;
      }
    }
    return true;
  });
}

std::string Tensor::to_string(size_t max_values) const {
  if (is_null()) return "null";
  std::string out = shape_to_string(shape_);
  out += (shape_.empty() ? "" : ",") + std::string(name_of(dt_)) + " [";
  size_t n = std::min(static_cast<size_t>(numel_), max_values);
  for (size_t i = 0; i < n; i++) {
    if (i) out += ", ";
    if (dt_ == DatumType::String) {
      out += "\"" + data<std::string>()[i] + "\"";
    } else if (dt_ == DatumType::Sequence) {
      const auto& seq = data<SequenceValue>()[i];
      out += fmt::format("{} items of {}", seq.items.size(), name_of(seq.elem_dt));
      for (size_t k = 0; k < seq.items.size() && k < max_values; k++)
        out += (k ? "; " : ": ") + seq.items[k].to_string(max_values);
    } else if (dt_ == DatumType::Optional) {
      const auto& opt = data<OptionalValue>()[i];
      out += opt.has_value() ? opt.value.to_string(max_values) : "none";
    } else if (dt_ == DatumType::Map) {
      const auto& m = data<MapValue>()[i];
      out += map_type_name(m.key_dt, m.value_dt) + " " + map_to_string(m, max_values);
    } else if (is_float(dt_) || is_narrow_float(dt_)) {
      out += fmt::format("{}", value_as_double(static_cast<int64_t>(i)));
    } else {
      out += fmt::format("{}", value_as_i64(static_cast<int64_t>(i)));
    }
  }
  if (static_cast<size_t>(numel_) > n) out += ", ...";
  return out + "]";
}

}  // namespace kiln
