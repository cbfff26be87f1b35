#include "ops/training/fill_like.h"

#include "base/error.h"

namespace kiln::ops {

std::vector<Fact> FillLike::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(is_numeric(x.dt), "FillLike: needs a numeric tensor, got {}", name_of(x.dt));
  return {Fact(x.dt, x.shape)};
}

void FillLike::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  Tensor& out = ctx.output(0, x.dtype(), x.shape());
  dispatch_numeric(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T v;
    if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>)
      v = T(static_cast<float>(value_));
    else
      v = static_cast<T>(value_);
    for (auto& e : out.values_mut<T>()) e = v;
  });
}

}  // namespace kiln::ops
