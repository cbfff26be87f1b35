#include "ops/sequence/sequence_common.h"

#include <cstring>

#include "base/error.h"

namespace kiln::ops {

size_t sequence_position(int64_t position, size_t length, bool allow_end, const std::string& op) {
  auto n = static_cast<int64_t>(length);
  int64_t hi = allow_end ? n : n - 1;
  KILN_ENSURE(position >= -n && position <= hi,
              "{}: position {} is out of range [{}, {}] for a sequence of {} items", op, position,
              -n, hi, n);
  return static_cast<size_t>(position < 0 ? position + n : position);
}

int64_t position_value(const Tensor& position, const std::string& op) {
  KILN_ENSURE(position.dtype() == DatumType::I32 || position.dtype() == DatumType::I64,
              "{}: position must be int32 or int64, got {}", op, name_of(position.dtype()));
  // The spec asks for a scalar; a one-element tensor (as the backend tests feed) means the same.
  KILN_ENSURE(position.numel() == 1, "{}: position must be a scalar, got [{}]", op,
              shape_to_string(position.shape()));
  return position.value_as_i64(0);
}

void check_position_fact(const Fact& position, const std::string& op) {
  KILN_ENSURE(position.dt == DatumType::I32 || position.dt == DatumType::I64,
              "{}: position must be int32 or int64, got {}", op, name_of(position.dt));
  KILN_ENSURE(!position.rank_known || !position.volume().is_int() || position.volume() == Dim(1),
              "{}: position must be a scalar, got [{}]", op, dims_to_string(position.shape));
}

const Fact& sequence_input_element(const FactRefs& inputs, size_t index, const std::string& op) {
  return element_fact(required(inputs, index, op), DatumType::Sequence,
                      op + " input " + std::to_string(index));
}

void copy_block(const Tensor& src, int64_t src_at, Tensor& dst, int64_t dst_at, int64_t count) {
  if (count <= 0) return;
  KILN_ENSURE(src.dtype() == dst.dtype() && !is_container(src.dtype()),
              "copy between tensors of {} and {}", name_of(src.dtype()), name_of(dst.dtype()));
  if (src.dtype() == DatumType::String) {
    const std::string* s = src.data<std::string>() + src_at;
    std::string* d = dst.data<std::string>() + dst_at;
    for (int64_t i = 0; i < count; i++) d[i] = s[i];
    return;
  }
  size_t es = size_of(src.dtype());
  std::memcpy(static_cast<char*>(dst.raw_data()) + static_cast<size_t>(dst_at) * es,
              static_cast<const char*>(src.raw_data()) + static_cast<size_t>(src_at) * es,
              static_cast<size_t>(count) * es);
}

bool known_empty_sequence(const Fact& fact) {
  return fact.dt == DatumType::Sequence && fact.value &&
         sequence_of(*fact.value, "sequence").items.empty();
}

}  // namespace kiln::ops
