#include "ops/sequence/split_to_sequence.h"

#include <numeric>

#include "ops/sequence/sequence_common.h"

namespace kiln::ops {

Attributes SplitToSequence::attributes() const {
  return {{"axis", std::to_string(axis_)}, {"keepdims", keepdims_ ? "1" : "0"}};
}

std::vector<int64_t> SplitToSequence::part_sizes(int64_t dim, const Tensor* split) const {
  auto check_parts = [](int64_t parts) {
    KILN_ENSURE(parts <= kMaxSequenceItems,
                "SplitToSequence: {} parts is too many for a sequence (at most 2^24)", parts);
  };
  if (!split) {
    check_parts(dim);
    return std::vector<int64_t>(static_cast<size_t>(dim), 1);
  }
  KILN_ENSURE(split->dtype() == DatumType::I32 || split->dtype() == DatumType::I64,
              "SplitToSequence: split must be int32 or int64, got {}", name_of(split->dtype()));
  KILN_ENSURE(split->rank() <= 1, "SplitToSequence: split must be a scalar or 1-D, got [{}]",
              shape_to_string(split->shape()));
  std::vector<int64_t> sizes;
  if (split->rank() == 0) {
    int64_t chunk = split->value_as_i64(0);
    KILN_ENSURE(chunk > 0, "SplitToSequence: split size must be positive, got {}", chunk);
    check_parts(dim / chunk + 1);
    for (int64_t at = 0; at < dim; at += chunk) sizes.push_back(std::min(chunk, dim - at));
    return sizes;
  }
  check_parts(split->numel());
  sizes = split->to_i64_vector();
  for (int64_t s : sizes) KILN_ENSURE(s >= 0, "SplitToSequence: negative split size {}", s);
  int64_t total = std::accumulate(sizes.begin(), sizes.end(), int64_t{0});
  KILN_ENSURE(total == dim, "SplitToSequence: split sizes add up to {}, the axis has {}", total,
              dim);
  return sizes;
}

std::vector<Fact> SplitToSequence::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 2);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(x.rank() >= 1, "SplitToSequence: input must have rank >= 1");
  size_t axis = normalize_axis(axis_, x.rank(), name());
  const Fact* split = inputs.size() > 1 ? inputs[1] : nullptr;
  Fact element(x.dt, x.shape);
  if (!split) {
    if (keepdims_)
      element.shape[axis] = 1;
    else
      element.shape.erase(element.shape.begin() + static_cast<long>(axis));
    return {sequence_fact(std::move(element))};
  }
  KILN_ENSURE(split->dt == DatumType::I32 || split->dt == DatumType::I64,
              "SplitToSequence: split must be int32 or int64, got {}", name_of(split->dt));
  KILN_ENSURE(split->rank() <= 1, "SplitToSequence: split must be a scalar or 1-D");
  element.shape[axis] = Dim::fresh();
  if (auto values = split->known_i64_values()) {
    bool same = !values->empty();
    for (int64_t v : *values) same = same && v == values->front();
    // A 1-D split of equal sizes, or a scalar size dividing a known axis evenly.
    if (split->rank() == 1 && same) element.shape[axis] = values->front();
    if (split->rank() == 0 && x.shape[axis].is_int() && values->front() > 0 &&
        x.shape[axis].to_int() % values->front() == 0)
      element.shape[axis] = values->front();
  }
  return {sequence_fact(std::move(element))};
}

void SplitToSequence::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  KILN_ENSURE(x.rank() >= 1, "SplitToSequence: input must have rank >= 1");
  size_t axis = normalize_axis(axis_, x.rank(), name());
  const Tensor* split = inputs.size() > 1 ? inputs[1] : nullptr;
  std::vector<int64_t> sizes = part_sizes(x.dim(axis), split);
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; d++) outer *= x.dim(d);
  for (size_t d = axis + 1; d < x.rank(); d++) inner *= x.dim(d);
  std::vector<Tensor> items;
  int64_t start = 0;
  for (int64_t size : sizes) {
    Shape shape = x.shape();
    shape[axis] = size;
    Tensor part(x.dtype(), shape);
    for (int64_t o = 0; o < outer; o++)
      copy_block(x, (o * x.dim(axis) + start) * inner, part, o * size * inner, size * inner);
    if (!split && !keepdims_) {
      shape.erase(shape.begin() + static_cast<long>(axis));
      part = part.reshaped(shape);
    }
    items.push_back(std::move(part));
    start += size;
  }
  ctx.set_output(0, make_sequence(x.dtype(), std::move(items)));
}

}  // namespace kiln::ops
