#include "core/op.h"

#include <fmt/format.h>

#include "core/error.h"

namespace kiln {

Tensor& EvalContext::output(size_t slot, DatumType dt, const Shape& shape) {
  KILN_ENSURE(slot < outputs_.size(), "output slot {} out of range ({} outputs)", slot,
              outputs_.size());
  outputs_[slot].reset(dt, shape);
  return outputs_[slot];
}

void EvalContext::set_output(size_t slot, Tensor tensor) {
  KILN_ENSURE(slot < outputs_.size(), "output slot {} out of range ({} outputs)", slot,
              outputs_.size());
  outputs_[slot] = std::move(tensor);
}

Cost Op::cost(const FactRefs&) const {
  Cost c;
  c.known = false;
  return c;
}

void expect_inputs(const std::string& op, size_t count, size_t min, long max) {
  if (count < min || (max >= 0 && count > static_cast<size_t>(max))) {
    if (max < 0) fail("{} expects at least {} inputs, got {}", op, min, count);
    if (static_cast<size_t>(max) == min) fail("{} expects {} inputs, got {}", op, min, count);
    fail("{} expects {} to {} inputs, got {}", op, min, max, count);
  }
}

const Fact& required(const FactRefs& inputs, size_t index, const std::string& op) {
  KILN_ENSURE(index < inputs.size() && inputs[index], "{}: input {} is required", op, index);
  return *inputs[index];
}

const Tensor& required(const TensorRefs& inputs, size_t index, const std::string& op) {
  KILN_ENSURE(index < inputs.size() && inputs[index], "{}: input {} is required", op, index);
  return *inputs[index];
}

std::string ints_to_string(const std::vector<int64_t>& values) {
  return fmt::format("[{}]", fmt::join(values, ","));
}

size_t normalize_axis(int64_t axis, size_t rank, const std::string& op) {
  int64_t r = static_cast<int64_t>(rank);
  KILN_ENSURE(axis >= -r && axis < r, "{}: axis {} out of range for rank {}", op, axis, rank);
  return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

}  // namespace kiln
