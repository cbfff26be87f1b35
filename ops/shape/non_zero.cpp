#include "ops/shape/non_zero.h"

namespace kiln::ops {

std::vector<Fact> NonZero::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& in = required(inputs, 0, name());
  KILN_ENSURE(in.dt != DatumType::String, "NonZero: string input is not supported");
  return {
      Fact(DatumType::I64, std::vector<Dim>{Dim(static_cast<int64_t>(in.rank())), Dim::fresh()})};
}

void NonZero::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& in = required(inputs, 0, name());
  std::vector<int64_t> flat;
  dispatch_pod(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = in.data<T>();
    for (int64_t i = 0; i < in.numel(); i++) {
      bool nz;
      if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>) {
        nz = static_cast<float>(src[i]) != 0.0f;
      } else {
        nz = src[i] != T{};
      }
      if (nz) flat.push_back(i);
    }
  });
  int64_t n = static_cast<int64_t>(flat.size());
  int64_t rank = static_cast<int64_t>(in.rank());
  Tensor& out = ctx.output(0, DatumType::I64, {rank, n});
  int64_t* dst = out.data<int64_t>();
  for (int64_t j = 0; j < n; j++) {
    int64_t rest = flat[static_cast<size_t>(j)];
    for (int64_t d = rank; d-- > 0;) {
      int64_t dim = in.dim(static_cast<size_t>(d));
      dst[d * n + j] = rest % dim;
      rest /= dim;
    }
  }
}

}  // namespace kiln::ops
