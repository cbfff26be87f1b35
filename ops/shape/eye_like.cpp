#include "ops/shape/eye_like.h"

namespace kiln::ops {

std::vector<Fact> EyeLike::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& in = required(inputs, 0, name());
  KILN_ENSURE(in.rank() == 2, "EyeLike: input must have rank 2, got {}", in.rank());
  DatumType dt = dtype_.value_or(in.dt);
  KILN_ENSURE(dt != DatumType::String, "EyeLike: string output is not supported");
  return {Fact(dt, in.shape)};
}

void EyeLike::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& in = required(inputs, 0, name());
  KILN_ENSURE(in.rank() == 2, "EyeLike: input must have rank 2, got {}", in.rank());
  DatumType dt = dtype_.value_or(in.dtype());
  Tensor& out = ctx.output(0, dt, in.shape());
  if (out.numel() == 0) return;  // (rows of an empty [2^31, 0] need no visit)
  int64_t rows = in.dim(0), cols = in.dim(1);
  dispatch_pod(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* dst = out.data<T>();
    T one;
    if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>) {
      one = T(1.0f);
    } else {
      one = static_cast<T>(1);
    }
    for (int64_t i = 0; i < rows; i++)
      for (int64_t j = 0; j < cols; j++) dst[i * cols + j] = j - i == k_ ? one : T{};
  });
}

}  // namespace kiln::ops
