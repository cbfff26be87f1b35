#include "ops/training/sum_to_shape.h"

#include "base/error.h"

namespace kiln::ops {

std::vector<Fact> SumToShape::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 2);
  const Fact& x = required(inputs, 0, name());
  const Fact& like = required(inputs, 1, name());
  KILN_ENSURE(is_numeric(x.dt), "SumToShape: needs a numeric tensor, got {}", name_of(x.dt));
  KILN_ENSURE(like.rank() <= x.rank(), "SumToShape: cannot sum rank {} down to rank {}", x.rank(),
              like.rank());
  return {Fact(x.dt, like.shape)};
}

void SumToShape::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  const Shape& target = required(inputs, 1, name()).shape();
  if (x.shape() == target) {
    ctx.set_output(0, x);
    return;
  }
  size_t rank = x.rank();
  KILN_ENSURE(target.size() <= rank, "SumToShape: cannot sum [{}] to [{}]",
              shape_to_string(x.shape()), shape_to_string(target));
  // The target aligned to the right, as broadcasting aligns it.
  Shape aligned(rank - target.size(), 1);
  aligned.insert(aligned.end(), target.begin(), target.end());
  for (size_t d = 0; d < rank; d++)
    KILN_ENSURE(aligned[d] == x.dim(d) || aligned[d] == 1,
                "SumToShape: [{}] does not broadcast from [{}]", shape_to_string(x.shape()),
                shape_to_string(target));
  Tensor& out = ctx.output(0, x.dtype(), target);
  auto out_strides = contiguous_strides(aligned);
  dispatch_numeric(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::vector<double> acc(static_cast<size_t>(out.numel()), 0.0);
    Shape index(rank, 0);
    for (int64_t i = 0; i < x.numel(); i++) {
      int64_t o = 0;
      for (size_t d = 0; d < rank; d++)
        if (aligned[d] != 1) o += index[d] * out_strides[d];
      if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>)
        acc[static_cast<size_t>(o)] += static_cast<float>(x.data<T>()[i]);
      else
        acc[static_cast<size_t>(o)] += static_cast<double>(x.data<T>()[i]);
      for (size_t d = rank; d-- > 0;) {
        if (++index[d] < x.dim(d)) break;
        index[d] = 0;
      }
    }
    T* dst = out.data<T>();
    for (size_t k = 0; k < acc.size(); k++) {
      if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>)
        dst[k] = T(static_cast<float>(acc[k]));
      else
        dst[k] = static_cast<T>(acc[k]);
    }
  });
}

}  // namespace kiln::ops
