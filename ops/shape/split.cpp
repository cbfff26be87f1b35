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
  const int64_t dim = in.dim(axis);
  // The part sizes without building vectors (a steady-state run allocates nothing): from the
  // attribute, an i64 sizes input, or equal chunks (the last one smaller).
  const Tensor* sizes_in = !split_ && inputs.size() > 1 ? inputs[1] : nullptr;
  const int64_t* given = split_ ? split_->data() : nullptr;
  std::vector<int64_t> converted;  // only for non-i64 sizes inputs
  if (sizes_in) {
    if (sizes_in->dtype() == DatumType::I64) {
      given = sizes_in->data<int64_t>();
    } else {
      converted = index_values(*sizes_in, name());
      given = converted.data();
    }
    KILN_ENSURE(static_cast<size_t>(sizes_in->numel()) == num_outputs_,
                "Split: {} sizes for {} outputs", sizes_in->numel(), num_outputs_);
  }
  const int64_t n = static_cast<int64_t>(num_outputs_);
  KILN_ENSURE(n >= 1, "Split: no outputs");
  const int64_t chunk_len = (dim + n - 1) / n;
  if (given) {
    int64_t total = 0;
    for (int64_t p = 0; p < n; p++) {
      KILN_ENSURE(given[p] >= 0, "Split: negative size {}", given[p]);
      KILN_ENSURE(given[p] <= dim - total, "Split: sizes add up to more than {}", dim);
      total += given[p];
    }
    KILN_ENSURE(total == dim, "Split: sizes add up to {}, not {}", total, dim);
  } else {
    KILN_ENSURE(dim - chunk_len * (n - 1) >= 0, "Split: cannot split {} into {} parts", dim, n);
  }
  // An empty input has empty parts: nothing to copy (and the products of huge declared dims
  // around an empty one need not fit).
  const bool empty = in.numel() == 0;
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis && !empty; d++) outer *= in.dim(d);
  for (size_t d = axis + 1; d < in.rank() && !empty; d++) inner *= in.dim(d);
  int64_t row = dim * inner;
  int64_t offset = 0;
  for (int64_t p = 0; p < n && static_cast<size_t>(p) < ctx.num_outputs(); p++) {
    int64_t len = given ? given[p] : (p + 1 < n ? chunk_len : dim - chunk_len * (n - 1));
    Shape& shape = ctx.temp_shape(0);
    shape.assign(in.shape().begin(), in.shape().end());
    shape[axis] = len;
    Tensor& out = ctx.output(static_cast<size_t>(p), in.dtype(), shape);
    if (empty) continue;
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
