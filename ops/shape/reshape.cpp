#include "ops/shape/reshape.h"

#include <algorithm>

#include "ops/shape/common.h"

namespace kiln::ops {

Attributes Reshape::attributes() const {
  if (!allowzero_) return {};
  return {{"allowzero", "1"}};
}

std::vector<Dim> reshape_dims(const std::vector<Dim>& input, const std::vector<Dim>& target,
                              bool allowzero, const std::string& op) {
  std::vector<Dim> out;
  std::optional<size_t> infer;
  for (size_t i = 0; i < target.size(); i++) {
    auto v = target[i].as_int();
    if (v && *v == -1) {
      KILN_ENSURE(!infer, "{}: more than one -1 in target shape [{}]", op, dims_to_string(target));
      infer = i;
      out.emplace_back(1);
    } else if (v && *v == 0 && !allowzero) {
      KILN_ENSURE(i < input.size(), "{}: 0 at position {} but input has rank {}", op, i,
                  input.size());
      out.push_back(input[i]);
    } else {
      KILN_ENSURE(!v || *v >= 0, "{}: invalid dim {} in target shape", op, *v);
      out.push_back(target[i]);
    }
  }
  if (infer) {
    // Cancel dims equal on both sides, so symbolic dims divide out exactly (1,S,40 -> S,-1).
    std::vector<Dim> rest_in = input;
    Dim known(1);
    for (size_t i = 0; i < out.size(); i++) {
      if (i == *infer) continue;
      auto it = std::find(rest_in.begin(), rest_in.end(), out[i]);
      if (it != rest_in.end()) {
        rest_in.erase(it);
      } else {
        known *= out[i];
      }
    }
    Dim num = dims_product(rest_in);
    if (auto k = known.as_int()) {
      KILN_ENSURE(*k != 0, "{}: cannot infer -1 with a zero dim in target shape [{}]", op,
                  dims_to_string(target));
      if (auto n = num.as_int())
        KILN_ENSURE(*n % *k == 0, "{}: cannot reshape [{}] to [{}]", op, dims_to_string(input),
                    dims_to_string(target));
      out[*infer] = num.div(*k);
    } else {
      out[*infer] = Dim::fresh();
    }
  } else {
    Dim a = dims_product(input), b = dims_product(out);
    if (a.is_int() && b.is_int())
      KILN_ENSURE(a == b, "{}: cannot reshape [{}] ({} elements) to [{}]", op,
                  dims_to_string(input), a.to_int(), dims_to_string(out));
  }
  return out;
}

std::vector<Fact> Reshape::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 2);
  const Fact& data = required(inputs, 0, name());
  const Fact& shape = required(inputs, 1, name());
  KILN_ENSURE(shape.rank() == 1, "Reshape: shape input must have rank 1, got [{}]",
              dims_to_string(shape.shape));
  std::vector<Dim> target = dims_from_shape_input(shape, name());
  Fact out(data.dt, reshape_dims(data.shape, target, allowzero_, name()));
  if (data.dims_value && out.rank() <= 1) out.dims_value = data.dims_value;
  return {out};
}

void Reshape::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& data = required(inputs, 0, "Reshape");
  const Tensor& shape = required(inputs, 1, "Reshape");
  // The common case on plain integers, into a reusable shape (no allocation per run); anything
  // unusual goes through reshape_dims below, which also words the errors.
  if (is_integer(shape.dtype()) && shape.rank() == 1) {
    Shape& out = ctx.temp_shape(0);
    int64_t known = 1;
    long infer = -1;
    bool ok = true;
    for (int64_t i = 0; i < shape.numel() && ok; i++) {
      int64_t v = shape.value_as_i64(i);
      if (v == 0 && !allowzero_) {
        ok = static_cast<size_t>(i) < data.rank();
        v = ok ? data.dim(static_cast<size_t>(i)) : 0;
      }
      if (v == -1) {
        ok = infer < 0;
        infer = static_cast<long>(i);
        out.push_back(1);
        continue;
      }
      ok = ok && v >= 0;
      known *= v;
      out.push_back(v);
    }
    if (ok && infer >= 0) {
      ok = known > 0 && data.numel() % known == 0;
      if (ok) out[static_cast<size_t>(infer)] = data.numel() / known;
    }
    if (ok && shape_numel(out) == data.numel()) {
      ctx.set_output_view(0, data, out);
      return;
    }
  }
  std::vector<Dim> in(data.shape().begin(), data.shape().end());
  std::vector<int64_t> t = index_values(shape, name());
  std::vector<Dim> target(t.begin(), t.end());
  Shape out;
  for (const auto& d : reshape_dims(in, target, allowzero_, name())) out.push_back(d.to_int());
  ctx.set_output(0, data.reshaped(out));
}

}  // namespace kiln::ops
