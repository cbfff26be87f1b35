#include "ops/reduce/topk.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "base/error.h"

namespace kiln::ops {

Attributes TopK::attributes() const {
  Attributes attrs{{"axis", std::to_string(axis_)},
                   {"largest", largest_ ? "1" : "0"},
                   {"sorted", sorted_ ? "1" : "0"}};
  if (k_) attrs.emplace_back("k", std::to_string(*k_));
  return attrs;
}

std::vector<Fact> TopK::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, k_ ? 1 : 2);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(is_numeric(x.dt), "{}: unsupported input type {}", name(), name_of(x.dt));
  size_t axis = normalize_axis(axis_, x.rank(), name());
  Dim k = Dim::fresh();
  std::optional<int64_t> known_k = k_;
  if (!k_) {
    const Fact& kf = required(inputs, 1, name());
    KILN_ENSURE(kf.dt == DatumType::I64, "{}: k must be int64, got {}", name(), name_of(kf.dt));
    if (kf.dims_value && kf.dims_value->size() == 1) k = (*kf.dims_value)[0];
    if (auto v = kf.known_i64_values()) {
      KILN_ENSURE(v->size() == 1, "{}: k must hold one value, got {}", name(), v->size());
      known_k = (*v)[0];
    }
  }
  if (known_k) {
    KILN_ENSURE(*known_k >= 0, "{}: k must be non-negative, got {}", name(), *known_k);
    if (auto n = x.shape[axis].as_int())
      KILN_ENSURE(*known_k <= *n, "{}: k = {} exceeds axis size {}", name(), *known_k, *n);
    k = *known_k;
  }
  std::vector<Dim> shape = x.shape;
  shape[axis] = k;
  return {Fact(x.dt, shape), Fact(DatumType::I64, shape)};
}

void TopK::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  size_t axis = normalize_axis(axis_, x.rank(), name());
  int64_t k = 0;
  if (k_) {
    k = *k_;
  } else {
    const Tensor& kt = required(inputs, 1, name());
    KILN_ENSURE(kt.numel() == 1, "{}: k must hold one value, got {}", name(), kt.numel());
    k = kt.value_as_i64(0);
  }
  int64_t n = x.dim(axis);
  KILN_ENSURE(k >= 0 && k <= n, "{}: k = {} out of range [0, {}]", name(), k, n);
  Shape shape = x.shape();
  shape[axis] = k;
  Tensor& values = ctx.output(0, x.dtype(), shape);
  Tensor* indices = ctx.num_outputs() > 1 ? &ctx.output(1, DatumType::I64, shape) : nullptr;
  // Nothing to select (and the products of huge declared dims around an empty one need not fit).
  if (values.numel() == 0) return;
  int64_t outer = 1, inner = 1;
  for (size_t i = 0; i < axis; i++) outer *= x.dim(i);
  for (size_t i = axis + 1; i < x.rank(); i++) inner *= x.dim(i);
  dispatch_numeric(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = x.data<T>();
    T* dst = values.data<T>();
    std::vector<int64_t> order(static_cast<size_t>(n));
    for (int64_t o = 0; o < outer; o++) {
      for (int64_t i = 0; i < inner; i++) {
        const T* p = src + o * n * inner + i;
        std::iota(order.begin(), order.end(), 0);
        // Strict ordering on values, then on index so that ties keep the lower index first.
        auto before = [&](int64_t a, int64_t b) {
          auto va = p[a * inner], vb = p[b * inner];
          if (largest_ ? va > vb : va < vb) return true;
          if (largest_ ? vb > va : vb < va) return false;
          return a < b;
        };
        std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
        for (int64_t j = 0; j < k; j++) {
          int64_t at = (o * k + j) * inner + i;
          dst[at] = p[order[j] * inner];
          if (indices) indices->data<int64_t>()[at] = order[j];
        }
      }
    }
  });
}

}  // namespace kiln::ops
