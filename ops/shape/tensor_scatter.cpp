#include "ops/shape/tensor_scatter.h"

#include <cstring>

#include "base/error.h"

namespace kiln::ops {

std::vector<Fact> TensorScatter::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 3);
  const Fact& past = required(inputs, 0, name());
  const Fact& update = required(inputs, 1, name());
  KILN_ENSURE(update.dt == past.dt && update.rank() == past.rank(),
              "TensorScatter: update ({}, rank {}) must match past_cache ({}, rank {})",
              name_of(update.dt), update.rank(), name_of(past.dt), past.rank());
  size_t axis = normalize_axis(axis_, past.rank(), name());
  KILN_ENSURE(axis != 0, "TensorScatter: axis cannot be the batch axis 0");
  for (size_t d = 0; d < past.rank(); d++)
    if (d != axis)
      KILN_ENSURE(update.shape[d] == past.shape[d],
                  "TensorScatter: update [{}] differs from past_cache [{}] outside axis {}",
                  dims_to_string(update.shape), dims_to_string(past.shape), axis);
  if (inputs.size() > 2 && inputs[2])
    KILN_ENSURE(is_integer(inputs[2]->dt) && inputs[2]->rank() == 1,
                "TensorScatter: write_indices must be a 1-D integer tensor");
  return {Fact(past.dt, past.shape)};
}

void TensorScatter::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& past = required(inputs, 0, name());
  const Tensor& update = required(inputs, 1, name());
  const Tensor* indices = inputs.size() > 2 ? inputs[2] : nullptr;
  KILN_ENSURE(!is_object(past.dtype()), "TensorScatter: {} caches are not supported",
              name_of(past.dtype()));
  size_t axis = normalize_axis(axis_, past.rank(), name());
  KILN_ENSURE(axis != 0 && update.dtype() == past.dtype() && update.rank() == past.rank(),
              "TensorScatter: update does not match past_cache");
  const int64_t batch = past.dim(0), max_seq = past.dim(axis), seq = update.dim(axis);
  for (size_t d = 0; d < past.rank(); d++)
    KILN_ENSURE(d == axis || update.dim(d) == past.dim(d),
                "TensorScatter: update [{}] differs from past_cache [{}] outside axis {}",
                shape_to_string(update.shape()), shape_to_string(past.shape()), axis);
  if (indices)
    KILN_ENSURE(indices->numel() == batch, "TensorScatter: {} write indices for batch {}",
                indices->numel(), batch);
  Tensor& out = ctx.output(0, past.dtype(), past.shape());
  if (past.nbytes()) std::memcpy(out.raw_data(), past.raw_data(), past.nbytes());
  // Rows of `inner` contiguous elements after the axis; `middle` outer rows per batch item.
  const size_t elem = size_of(past.dtype());
  int64_t inner = 1, middle = 1;
  for (size_t d = axis + 1; d < past.rank(); d++) inner *= past.dim(d);
  for (size_t d = 1; d < axis; d++) middle *= past.dim(d);
  const auto* src = static_cast<const char*>(update.raw_data());
  auto* dst = static_cast<char*>(out.raw_data());
  const size_t row = static_cast<size_t>(inner) * elem;
  for (int64_t b = 0; b < batch; b++) {
    int64_t start = indices ? indices->value_as_i64(b) : 0;
    for (int64_t s = 0; s < seq; s++) {
      int64_t pos = start + s;
      if (circular_) pos = ((pos % max_seq) + max_seq) % max_seq;
      KILN_ENSURE(pos >= 0 && pos < max_seq,
                  "TensorScatter: write index {} past the cache length {} (linear mode)", pos,
                  max_seq);
      for (int64_t m = 0; m < middle; m++) {
        const int64_t from = ((b * middle + m) * seq + s) * inner;
        const int64_t to = ((b * middle + m) * max_seq + pos) * inner;
        std::memcpy(dst + static_cast<size_t>(to) * elem, src + static_cast<size_t>(from) * elem,
                    row);
      }
    }
  }
}

}  // namespace kiln::ops
