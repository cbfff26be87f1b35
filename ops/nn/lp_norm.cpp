#include "ops/nn/lp_norm.h"

#include <cmath>

#include "base/error.h"
#include "ops/nn/nn_common.h"

namespace kiln::ops {

std::vector<Fact> LpNorm::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(is_float(x.dt), "LpNormalization: input type {} is not a float type", name_of(x.dt));
  KILN_ENSURE(p_ == 1 || p_ == 2, "LpNormalization: p must be 1 or 2, got {}", p_);
  normalize_axis(axis_, x.rank(), name());
  return {Fact(x.dt, x.shape)};
}

namespace {

template <typename T>
void lp_norm(const Tensor& x, size_t axis, int64_t p, Tensor& y) {
  using A = nn::Acc<T>;
  const int64_t n = x.dim(axis);
  int64_t inner = 1;
  for (size_t d = axis + 1; d < x.rank(); d++) inner *= x.dim(d);
  const int64_t outer = n * inner > 0 ? x.numel() / (n * inner) : 0;
  const T* xd = x.data<T>();
  T* yd = y.data<T>();
  for (int64_t o = 0; o < outer; o++) {
    for (int64_t i = 0; i < inner; i++) {
      const int64_t base = o * n * inner + i;
      A norm = 0;
      for (int64_t k = 0; k < n; k++) {
        A v = nn::to_acc<A>(xd[base + k * inner]);
        norm += p == 1 ? std::abs(v) : v * v;
      }
      if (p == 2) norm = std::sqrt(norm);
      for (int64_t k = 0; k < n; k++) {
        A v = nn::to_acc<A>(xd[base + k * inner]);
        yd[base + k * inner] = nn::from_acc<T>(norm == A(0) ? A(0) : v / norm);
      }
    }
  }
}

}  // namespace

void LpNorm::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  size_t axis = normalize_axis(axis_, x.rank(), name());
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  switch (x.dtype()) {
    case DatumType::F32:
      return lp_norm<float>(x, axis, p_, y);
    case DatumType::F64:
      return lp_norm<double>(x, axis, p_, y);
    case DatumType::F16:
      return lp_norm<f16>(x, axis, p_, y);
    case DatumType::BF16:
      return lp_norm<bf16>(x, axis, p_, y);
    default:
      fail("LpNormalization: unsupported type {}", name_of(x.dtype()));
  }
}

}  // namespace kiln::ops
