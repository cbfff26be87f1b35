#include "ops/shape/range.h"

#include <cmath>

#include "ops/shape/common.h"

namespace kiln::ops {
namespace {

int64_t range_length(double start, double limit, double delta) {
  KILN_ENSURE(delta != 0, "Range: delta cannot be 0");
  double n = std::ceil((limit - start) / delta);
  return n > 0 ? static_cast<int64_t>(n) : 0;
}

}  // namespace

std::vector<Fact> Range::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 3, 3);
  const Fact& start = required(inputs, 0, name());
  const Fact& limit = required(inputs, 1, name());
  const Fact& delta = required(inputs, 2, name());
  KILN_ENSURE(start.dt == limit.dt && start.dt == delta.dt,
              "Range: start, limit and delta must have the same type");
  for (const Fact* f : {&start, &limit, &delta})
    KILN_ENSURE(f->rank() == 0 || (f->rank() == 1 && f->shape[0] == Dim(1)),
                "Range: start, limit and delta must be scalars");
  Dim len = Dim::fresh();
  if (start.value && limit.value && delta.value) {
    len = range_length(start.value->value_as_double(0), limit.value->value_as_double(0),
                       delta.value->value_as_double(0));
  } else if (start.dims_value && limit.dims_value && delta.dims_value) {
    // Integer ranges with symbolic bounds: exact when delta is a known positive integer.
    Dim s = (*start.dims_value)[0], l = (*limit.dims_value)[0];
    if (auto d = (*delta.dims_value)[0].as_int(); d && *d > 0) len = (l - s).div_ceil(*d);
  }
  return {Fact(start.dt, std::vector<Dim>{len})};
}

void Range::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& start = required(inputs, 0, name());
  const Tensor& limit = required(inputs, 1, name());
  const Tensor& delta = required(inputs, 2, name());
  KILN_ENSURE(start.numel() == 1 && limit.numel() == 1 && delta.numel() == 1,
              "Range: start, limit and delta must be scalars");
  dispatch_numeric(start.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      int64_t s = start.value_as_i64(0), l = limit.value_as_i64(0), d = delta.value_as_i64(0);
      KILN_ENSURE(d != 0, "Range: delta cannot be 0");
      int64_t n = d > 0 ? (l > s ? (l - s + d - 1) / d : 0) : (s > l ? (s - l - d - 1) / -d : 0);
      T* dst = ctx.output(0, start.dtype(), {n}).template data<T>();
      for (int64_t i = 0; i < n; i++) dst[i] = static_cast<T>(s + i * d);
    } else {
      // Accumulate in the input type (like the spec's loop), through float for f16/bf16.
      using A = std::conditional_t<std::is_same_v<T, double>, double, float>;
      A s = static_cast<A>(start.value_as_double(0)), l = static_cast<A>(limit.value_as_double(0)),
        d = static_cast<A>(delta.value_as_double(0));
      int64_t n = range_length(s, l, d);
      T* dst = ctx.output(0, start.dtype(), {n}).template data<T>();
      for (int64_t i = 0; i < n; i++) dst[i] = T(s + static_cast<A>(i) * d);
    }
  });
}

}  // namespace kiln::ops
