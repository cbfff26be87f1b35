#include "ops/image/max_unpool.h"

#include <fmt/format.h>

namespace kiln::ops {

Attributes MaxUnpool::attributes() const {
  Attributes a = {{"kernel_shape", fmt::format("{}", fmt::join(kernel_, ","))}};
  if (!strides_.empty()) a.push_back({"strides", fmt::format("{}", fmt::join(strides_, ","))});
  if (!pads_.empty()) a.push_back({"pads", fmt::format("{}", fmt::join(pads_, ","))});
  return a;
}

std::vector<Dim> MaxUnpool::inferred_shape(const std::vector<Dim>& x) const {
  KILN_ENSURE(x.size() >= 3, "MaxUnpool: input must have rank >= 3, got {}", x.size());
  size_t sp = x.size() - 2;
  KILN_ENSURE(kernel_.size() == sp, "MaxUnpool: kernel_shape must have {} values, got {}", sp,
              kernel_.size());
  KILN_ENSURE(strides_.empty() || strides_.size() == sp, "MaxUnpool: strides must have {} values",
              sp);
  KILN_ENSURE(pads_.empty() || pads_.size() == 2 * sp, "MaxUnpool: pads must have {} values",
              2 * sp);
  std::vector<Dim> out = {x[0], x[1]};
  for (size_t i = 0; i < sp; i++) {
    int64_t s = strides_.empty() ? 1 : strides_[i];
    int64_t pad = pads_.empty() ? 0 : pads_[i] + pads_[i + sp];
    out.push_back((x[i + 2] - Dim(1)) * Dim(s) + Dim(kernel_[i] - pad));
  }
  return out;
}

std::vector<Fact> MaxUnpool::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 3);
  const Fact& x = required(inputs, 0, name());
  const Fact& idx = required(inputs, 1, name());
  KILN_ENSURE(is_numeric(x.dt), "MaxUnpool: unsupported input type {}", name_of(x.dt));
  KILN_ENSURE(idx.dt == DatumType::I64, "MaxUnpool: indices must be i64, got {}", name_of(idx.dt));
  KILN_ENSURE(idx.rank() == x.rank(), "MaxUnpool: indices rank {} differs from input rank {}",
              idx.rank(), x.rank());
  std::vector<Dim> inferred = inferred_shape(x.shape);
  if (inputs.size() > 2 && inputs[2]) {
    const Fact& os = *inputs[2];
    KILN_ENSURE(os.rank() == 1, "MaxUnpool: output_shape must be 1-D");
    if (auto known = os.known_i64_values()) {
      KILN_ENSURE(known->size() == x.rank(), "MaxUnpool: output_shape must have {} values, got {}",
                  x.rank(), known->size());
      return {Fact(x.dt, std::vector<Dim>(known->begin(), known->end()))};
    }
    if (os.dims_value && os.dims_value->size() == x.rank()) return {Fact(x.dt, *os.dims_value)};
    std::vector<Dim> out;
    for (size_t i = 0; i < x.rank(); i++) out.push_back(Dim::fresh());
    return {Fact(x.dt, out)};
  }
  return {Fact(x.dt, inferred)};
}

void MaxUnpool::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  const Tensor& idx = required(inputs, 1, name());
  KILN_ENSURE(idx.shape() == x.shape(), "MaxUnpool: indices shape [{}] differs from input [{}]",
              shape_to_string(idx.shape()), shape_to_string(x.shape()));
  Shape inferred;
  for (const Dim& d : inferred_shape(std::vector<Dim>(x.shape().begin(), x.shape().end())))
    inferred.push_back(d.to_int());
  Shape out = inferred;
  if (inputs.size() > 2 && inputs[2]) {
    out = inputs[2]->to_i64_vector();
    KILN_ENSURE(out.size() == x.rank(), "MaxUnpool: output_shape must have {} values, got {}",
                x.rank(), out.size());
  }
  // Indices address the inferred (unpadded) layout; an explicit output_shape may be larger,
  // so each index is re-encoded into the output's coordinates.
  const int64_t inferred_total = shape_numel(inferred);
  std::vector<int64_t> out_strides = contiguous_strides(out);
  auto target = [&](int64_t flat) {
    KILN_ENSURE(flat >= 0 && flat < inferred_total, "MaxUnpool: index {} out of range [0, {})",
                flat, inferred_total);
    int64_t off = 0;
    for (size_t d = inferred.size(); d-- > 0;) {
      int64_t coord = flat % inferred[d];
      flat /= inferred[d];
      KILN_ENSURE(coord < out[d], "MaxUnpool: index falls outside output_shape [{}]",
                  shape_to_string(out));
      off += coord * out_strides[d];
    }
    return off;
  };
  Tensor& y = ctx.output(0, x.dtype(), out);
  const int64_t total = y.numel();
  const int64_t* pi = idx.data<int64_t>();
  dispatch_numeric(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* py = y.data<T>();
    const T* px = x.data<T>();
    for (int64_t i = 0; i < total; i++) py[i] = T(0.f);
    for (int64_t i = 0; i < x.numel(); i++) py[target(pi[i])] = px[i];
  });
}

}  // namespace kiln::ops
