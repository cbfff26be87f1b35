#include "ops/shape/reverse_sequence.h"

#include "ops/shape/common.h"

namespace kiln::ops {

std::vector<Fact> ReverseSequence::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 2);
  const Fact& in = required(inputs, 0, name());
  const Fact& lens = required(inputs, 1, name());
  KILN_ENSURE(in.rank() >= 2, "ReverseSequence: input must have rank >= 2");
  KILN_ENSURE(lens.rank() == 1 && is_integer(lens.dt),
              "ReverseSequence: sequence_lens must be a rank 1 integer tensor");
  size_t b = normalize_axis(batch_axis_, in.rank(), name());
  size_t t = normalize_axis(time_axis_, in.rank(), name());
  KILN_ENSURE(b != t && b <= 1 && t <= 1,
              "ReverseSequence: batch_axis and time_axis must be 0 and 1");
  return {Fact(in.dt, in.shape)};
}

void ReverseSequence::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& in = required(inputs, 0, name());
  auto lens = index_values(required(inputs, 1, name()), name());
  size_t b = normalize_axis(batch_axis_, in.rank(), name());
  size_t t = normalize_axis(time_axis_, in.rank(), name());
  KILN_ENSURE(b != t, "ReverseSequence: batch_axis and time_axis must differ");
  int64_t batch = in.dim(b), time = in.dim(t);
  KILN_ENSURE(static_cast<int64_t>(lens.size()) == batch,
              "ReverseSequence: {} sequence lengths for batch {}", lens.size(), batch);
  auto strides = contiguous_strides(in.shape());
  int64_t inner = in.numel() == 0 ? 0 : strides[1];
  Tensor& out = ctx.output(0, in.dtype(), in.shape());
  dispatch_any(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = in.data<T>();
    T* dst = out.data<T>();
    for (int64_t i = 0; i < batch; i++) {
      int64_t len = lens[static_cast<size_t>(i)];
      KILN_ENSURE(len >= 0 && len <= time, "ReverseSequence: length {} out of range [0, {}]", len,
                  time);
      for (int64_t j = 0; j < time; j++) {
        int64_t from = j < len ? len - 1 - j : j;
        int64_t so = i * strides[b] + from * strides[t], dof = i * strides[b] + j * strides[t];
        for (int64_t k = 0; k < inner; k++) dst[dof + k] = src[so + k];
      }
    }
  });
}

}  // namespace kiln::ops
