#include "ops/shape/split.h"

#include "ops/shape/common.h"

namespace kiln::ops {

Attributes Split::attributes() const {
  Attributes a{{"axis", std::to_string(axis_)}, {"outputs", std::to_string(num_outputs_)}};
  if (split_) a.emplace_back("split", ints_to_string(*split_));
  return a;
}

std::vector<Dim> Split::sizes(const Dim& dim,
                              const std::optional<std::vector<int64_t>>& split) const {
  std::vector<Dim> out;
  if (split) {
    KILN_ENSURE(split->size() == num_outputs_, "Split: {} sizes for {} outputs", split->size(),
                num_outputs_);
    Dim total(0);
    for (int64_t s : *split) {
      KILN_ENSURE(s >= 0, "Split: negative size {}", s);
      out.emplace_back(s);
      total += Dim(s);
    }
    if (dim.is_int())
      KILN_ENSURE(total == dim, "Split: sizes {} do not add up to {}", ints_to_string(*split),
                  dim.to_int());
    return out;
  }
  KILN_ENSURE(num_outputs_ >= 1, "Split: no outputs");
  int64_t n = static_cast<int64_t>(num_outputs_);
  Dim chunk = dim.div_ceil(n);
  for (int64_t i = 0; i + 1 < n; i++) out.push_back(chunk);
  out.push_back(dim - chunk * Dim(n - 1));
  if (auto v = out.back().as_int())
    KILN_ENSURE(*v >= 0, "Split: cannot split {} into {} parts", dim.to_string(), n);
  return out;
}

std::vector<Fact> Split::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 2);
  const Fact& in = required(inputs, 0, name());
  size_t axis = normalize_axis(axis_, in.rank(), name());
  std::optional<std::vector<int64_t>> split = split_;
  std::vector<Fact> outs;
  if (!split && inputs.size() > 1 && inputs[1]) {
    split = inputs[1]->known_i64_values();
    if (!split) {
      for (size_t i = 0; i < num_outputs_; i++) {
        Fact f(in.dt, in.shape);
        f.shape[axis] = Dim::fresh();
        outs.push_back(f);
      }
      return outs;
    }
  }
  for (const Dim& d : sizes(in.shape[axis], split)) {
    Fact f(in.dt, in.shape);
    f.shape[axis] = d;
    outs.push_back(f);
  }
  return outs;
}

void Split::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& in = required(inputs, 0, name());
  size_t axis = normalize_axis(axis_, in.rank(), name());
  std::optional<std::vector<int64_t>> split = split_;
  if (!split && inputs.size() > 1 && inputs[1]) split = index_values(*inputs[1], name());
  auto parts = sizes(in.dim(axis), split);
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; d++) outer *= in.dim(d);
  for (size_t d = axis + 1; d < in.rank(); d++) inner *= in.dim(d);
  int64_t row = in.dim(axis) * inner;
  int64_t offset = 0;
  for (size_t p = 0; p < parts.size() && p < ctx.num_outputs(); p++) {
    int64_t len = parts[p].to_int();
    Shape shape = in.shape();
    shape[axis] = len;
    Tensor& out = ctx.output(p, in.dtype(), shape);
    dispatch_any(in.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* src = in.data<T>();
      T* dst = out.data<T>();
      int64_t chunk = len * inner;
      for (int64_t o = 0; o < outer; o++)
        for (int64_t k = 0; k < chunk; k++) dst[o * chunk + k] = src[o * row + offset + k];
    });
    offset += len * inner;
  }
}

}  // namespace kiln::ops
