#include "ops/elementwise/silu.h"

#include <cmath>

#include "base/error.h"
#include "kernels/elementwise/vec_math.h"
#include "ops/elementwise/util.h"

namespace kiln::ops {

namespace {

// x * sigmoid(x), with sigmoid in the form whose exp never overflows.
template <typename C>
C silu(C x) {
  if (x >= C(0)) return x / (C(1) + std::exp(-x));
  C e = std::exp(x);
  return x * e / (C(1) + e);
}

}  // namespace

std::vector<Fact> Silu::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(is_float(x.dt), "{}: expects a float input, got {}", name(), name_of(x.dt));
  return {Fact(x.dt, x.shape)};
}

void Silu::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  KILN_ENSURE(is_float(x.dtype()), "{}: expects a float input, got {}", name(), name_of(x.dtype()));
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  const int64_t n = x.numel();
  if (vectorized_ && x.dtype() == DatumType::F32) {
    // The kernel of the fused post step: the same bits whether or not a conv precedes it.
    kernels::vec_math().unary(kernels::UnaryFn::Silu, x.data<float>(), y.data<float>(), n, 0, 0);
    return;
  }
  dispatch_numeric(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_integral_v<T>) {
      using C = compute_t<T>;
      const T* src = x.data<T>();
      T* dst = y.data<T>();
      for (int64_t i = 0; i < n; i++) dst[i] = from_compute<T>(silu(static_cast<C>(src[i])));
    }
  });
}

Cost Silu::cost(const FactRefs& inputs) const {
  Cost c;
  if (!inputs.empty() && inputs[0]) c.other = inputs[0]->volume();
  return c;
}

OpPtr Silu::codegen(const FactRefs& inputs) const {
  if (vectorized_ || inputs.size() != 1 || !inputs[0] || inputs[0]->dt != DatumType::F32)
    return nullptr;
  return std::make_shared<Silu>(true);
}

std::optional<OutputStep> Silu::output_step(const FactRefs& inputs, size_t) const {
  if (inputs.size() != 1 || !inputs[0] || inputs[0]->dt != DatumType::F32) return std::nullopt;
  OutputStep s;
  s.kind = OutputStep::Kind::Unary;
  s.unary = kernels::UnaryFn::Silu;
  return s;
}

}  // namespace kiln::ops
