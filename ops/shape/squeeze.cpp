#include "ops/shape/squeeze.h"

#include "core/run_limits.h"
#include "ops/shape/common.h"

namespace kiln::ops {
namespace {

// The axes to use: the attribute, else the known values of input 1, else nullopt (none given
// or not known before running; `unknown_count` then says how many there are, when known).
std::optional<std::vector<int64_t>> axes_of(const std::optional<std::vector<int64_t>>& attr,
                                            const FactRefs& inputs,
                                            std::optional<int64_t>* unknown_count) {
  if (attr) return attr;
  if (inputs.size() < 2 || !inputs[1]) return std::nullopt;
  auto v = inputs[1]->known_i64_values();
  if (!v && unknown_count) {
    const Fact& f = *inputs[1];
    if (f.rank() == 1 && f.shape[0].is_int())
      *unknown_count = f.shape[0].to_int();
    else if (f.rank() == 0)
      *unknown_count = 1;
  }
  return v;
}

// Axes unknown until run time: the rank is known, the dims are not.
std::vector<Dim> fresh_dims(size_t rank) {
  check_rank(rank > size_t{kMaxRank} ? kMaxRank + 1 : static_cast<int64_t>(rank), "output");
  std::vector<Dim> dims;
  for (size_t i = 0; i < rank; i++) dims.push_back(Dim::fresh());
  return dims;
}

std::vector<bool> axis_mask(const std::vector<int64_t>& axes, size_t rank, const std::string& op) {
  std::vector<bool> mask(rank, false);
  for (int64_t a : axes) {
    size_t n = normalize_axis(a, rank, op);
    KILN_ENSURE(!mask[n], "{}: axis {} repeated", op, a);
    mask[n] = true;
  }
  return mask;
}

// Without axes, removes the dims equal to 1 (symbolic dims are assumed not to be 1).
std::vector<Dim> squeeze_dims(const std::vector<Dim>& in,
                              const std::optional<std::vector<int64_t>>& axes) {
  std::vector<Dim> out;
  if (!axes) {
    for (const auto& d : in)
      if (d != Dim(1)) out.push_back(d);
    return out;
  }
  auto mask = axis_mask(*axes, in.size(), "Squeeze");
  for (size_t i = 0; i < in.size(); i++) {
    if (mask[i]) {
      KILN_ENSURE(in[i] == Dim(1) || !in[i].is_int(), "Squeeze: cannot squeeze axis {} of size {}",
                  i, in[i].to_string());
      continue;
    }
    out.push_back(in[i]);
  }
  return out;
}

std::vector<Dim> unsqueeze_dims(const std::vector<Dim>& in, const std::vector<int64_t>& axes) {
  size_t rank = in.size() + axes.size();
  auto mask = axis_mask(axes, rank, "Unsqueeze");
  std::vector<Dim> out;
  size_t j = 0;
  for (size_t i = 0; i < rank; i++) out.push_back(mask[i] ? Dim(1) : in[j++]);
  return out;
}

Fact with_dims_value(const Fact& in, std::vector<Dim> shape) {
  Fact out(in.dt, std::move(shape));
  if (in.dims_value && out.rank() <= 1) out.dims_value = in.dims_value;
  return out;
}

}  // namespace

Attributes Squeeze::attributes() const {
  if (!axes_) return {};
  return {{"axes", ints_to_string(*axes_)}};
}

std::vector<Fact> Squeeze::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 2);
  const Fact& in = required(inputs, 0, name());
  std::optional<int64_t> count;
  auto axes = axes_of(axes_, inputs, &count);
  if (!axes && count) {
    KILN_ENSURE(*count <= static_cast<int64_t>(in.rank()), "Squeeze: {} axes for rank {}", *count,
                in.rank());
    return {Fact(in.dt, fresh_dims(in.rank() - static_cast<size_t>(*count)))};
  }
  KILN_ENSURE(axes || inputs.size() < 2 || !inputs[1], "Squeeze: axes must be known");
  return {with_dims_value(in, squeeze_dims(in.shape, axes))};
}

namespace {
// The axes of an evaluation: the attribute, or the input's values copied into `buffer`; nullptr
// when neither is given. (Reusable buffers: no allocation per run.)
const std::vector<int64_t>* eval_axes(const std::optional<std::vector<int64_t>>& attr,
                                      const TensorRefs& inputs, Shape& buffer, const char* op) {
  if (attr) return &*attr;
  if (inputs.size() < 2 || !inputs[1]) return nullptr;
  const Tensor& t = *inputs[1];
  KILN_ENSURE(is_integer(t.dtype()), "{}: indices must be integers, got {}", op,
              name_of(t.dtype()));
  for (int64_t i = 0; i < t.numel(); i++) buffer.push_back(t.value_as_i64(i));
  return &buffer;
}
}  // namespace

void Squeeze::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& in = required(inputs, 0, "Squeeze");
  const std::vector<int64_t>* axes = eval_axes(axes_, inputs, ctx.temp_shape(1), "Squeeze");
  Shape& shape = ctx.temp_shape(0);
  const size_t rank = in.rank();
  for (size_t i = 0; i < rank; i++) {
    bool listed = false;
    if (axes)
      for (int64_t a : *axes) listed = listed || normalize_axis(a, rank, "Squeeze") == i;
    if (axes ? listed : in.dim(i) == 1) {
      KILN_ENSURE(in.dim(i) == 1, "Squeeze: cannot squeeze axis {} of size {}", i, in.dim(i));
      continue;
    }
    shape.push_back(in.dim(i));
  }
  ctx.set_output_view(0, in, shape);
}

Attributes Unsqueeze::attributes() const {
  if (!axes_) return {};
  return {{"axes", ints_to_string(*axes_)}};
}

std::vector<Fact> Unsqueeze::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 2);
  const Fact& in = required(inputs, 0, name());
  std::optional<int64_t> count;
  auto axes = axes_of(axes_, inputs, &count);
  if (!axes && count) {
    check_rank(*count, "Unsqueeze axes");  // also keeps in.rank() + count from wrapping
    return {Fact(in.dt, fresh_dims(in.rank() + static_cast<size_t>(*count)))};
  }
  KILN_ENSURE(axes.has_value(), "Unsqueeze: axes are required");
  return {with_dims_value(in, unsqueeze_dims(in.shape, *axes))};
}

void Unsqueeze::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& in = required(inputs, 0, "Unsqueeze");
  const std::vector<int64_t>* axes = eval_axes(axes_, inputs, ctx.temp_shape(1), "Unsqueeze");
  KILN_ENSURE(axes != nullptr, "Unsqueeze: axes are required");
  const size_t rank = in.rank() + axes->size();
  Shape& shape = ctx.temp_shape(0);
  size_t j = 0;
  for (size_t i = 0; i < rank; i++) {
    size_t hits = 0;
    for (int64_t a : *axes) hits += normalize_axis(a, rank, "Unsqueeze") == i ? 1 : 0;
    KILN_ENSURE(hits <= 1, "Unsqueeze: axis {} is listed {} times", i, hits);
    shape.push_back(hits ? 1 : in.dim(j++));
  }
  ctx.set_output_view(0, in, shape);
}

}  // namespace kiln::ops
