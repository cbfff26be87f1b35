#include "ops/nn/softmax_cross_entropy_loss.h"

#include "base/error.h"
#include "ops/nn/softmax.h"

namespace kiln::ops {

Attributes SoftmaxCrossEntropyLoss::attributes() const {
  Attributes attrs{{"reduction", loss_reduction_name(reduction_)}};
  if (ignore_index_) attrs.emplace_back("ignore_index", std::to_string(*ignore_index_));
  return attrs;
}

std::vector<Fact> SoftmaxCrossEntropyLoss::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 3);
  const Fact& scores = required(inputs, 0, name());
  const Fact* weight = inputs.size() > 2 ? inputs[2] : nullptr;
  Fact loss = nll_loss_fact(name(), scores, required(inputs, 1, name()), weight, reduction_);
  return {loss, Fact(scores.dt, scores.shape)};
}

void SoftmaxCrossEntropyLoss::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& scores = required(inputs, 0, name());
  KILN_ENSURE(scores.rank() >= 2, "{}: scores must have rank >= 2", name());
  int64_t n = scores.dim(0), c = scores.dim(1);
  // (Empty scores may declare huge dims: n * c is only formed when they are not empty.)
  int64_t d = scores.numel() > 0 ? scores.numel() / (n * c) : 0;
  std::vector<double> x = tensor_to_doubles(scores), logp(x.size());
  if (!x.empty()) softmax_rows(x.data(), logp.data(), n, c, d, true);
  const Tensor* weight = inputs.size() > 2 ? inputs[2] : nullptr;
  nll_loss_eval(name(), ctx, logp, scores, required(inputs, 1, name()), weight, reduction_,
                ignore_index_);
  if (ctx.num_outputs() > 1) {
    Tensor& out = ctx.output(1, scores.dtype(), scores.shape());
    dispatch_numeric(scores.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* y = out.data<T>();
      for (size_t i = 0; i < logp.size(); i++) {
        if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>)
          y[i] = T(static_cast<float>(logp[i]));
        else
          y[i] = static_cast<T>(logp[i]);
      }
    });
  }
}

Cost SoftmaxCrossEntropyLoss::cost(const FactRefs& inputs) const {
  Cost c;
  c.other = required(inputs, 0, name()).volume();
  return c;
}

}  // namespace kiln::ops
