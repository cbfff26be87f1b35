#include "ops/shape/trilu.h"

#include "ops/shape/common.h"

namespace kiln::ops {

std::vector<Fact> Trilu::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 2);
  const Fact& in = required(inputs, 0, name());
  KILN_ENSURE(in.rank() >= 2, "Trilu: input must have rank >= 2, got {}", in.rank());
  if (inputs.size() > 1 && inputs[1])
    KILN_ENSURE(is_integer(inputs[1]->dt) && inputs[1]->rank() == 0,
                "Trilu: k must be an integer scalar");
  return {Fact(in.dt, in.shape)};
}

void Trilu::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& in = required(inputs, 0, name());
  KILN_ENSURE(in.rank() >= 2, "Trilu: input must have rank >= 2, got {}", in.rank());
  int64_t k = 0;
  if (inputs.size() > 1 && inputs[1]) {
    KILN_ENSURE(inputs[1]->numel() == 1, "Trilu: k must be a scalar");
    k = inputs[1]->value_as_i64(0);
  }
  Tensor& out = ctx.output(0, in.dtype(), in.shape());
  // An empty tensor may still declare huge dims ([0, 16, 2^63-1]): rows * cols would overflow.
  if (in.numel() == 0) return;
  int64_t rows = in.dim(in.rank() - 2), cols = in.dim(in.rank() - 1);
  int64_t mats = in.numel() / (rows * cols);
  dispatch_any(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = in.data<T>();
    T* dst = out.data<T>();
    for (int64_t m = 0; m < mats; m++)
      for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) {
          int64_t o = (m * rows + i) * cols + j;
          bool keep = upper_ ? j - i >= k : j - i <= k;
          dst[o] = keep ? src[o] : T{};
        }
  });
}

}  // namespace kiln::ops
