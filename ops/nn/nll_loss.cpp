#include "ops/nn/nll_loss.h"

#include <limits>

#include "base/error.h"
#include "ops/nn/softmax.h"

namespace kiln::ops {

LossReduction parse_loss_reduction(const std::string& text) {
  if (text == "none") return LossReduction::None;
  if (text == "sum") return LossReduction::Sum;
  if (text == "mean") return LossReduction::Mean;
  fail("unknown loss reduction '{}' (expected none, sum or mean)", text);
}

std::string loss_reduction_name(LossReduction r) {
  switch (r) {
    case LossReduction::None:
      return "none";
    case LossReduction::Sum:
      return "sum";
    case LossReduction::Mean:
      return "mean";
  }
  return "mean";
}

Attributes NllLoss::attributes() const {
  Attributes attrs{{"reduction", loss_reduction_name(reduction_)}};
  if (ignore_index_) attrs.emplace_back("ignore_index", std::to_string(*ignore_index_));
  return attrs;
}

Fact nll_loss_fact(const std::string& op, const Fact& input, const Fact& target, const Fact* weight,
                   LossReduction reduction) {
  KILN_ENSURE(is_float(input.dt), "{}: input must be a float tensor, got {}", op,
              name_of(input.dt));
  KILN_ENSURE(input.rank() >= 2, "{}: input must have rank >= 2 (N, C, ...), got rank {}", op,
              input.rank());
  KILN_ENSURE(target.dt == DatumType::I64 || target.dt == DatumType::I32,
              "{}: target must be int32 or int64, got {}", op, name_of(target.dt));
  KILN_ENSURE(target.rank() + 1 == input.rank(),
              "{}: target rank {} must be input rank {} minus one", op, target.rank(),
              input.rank());
  for (size_t i = 0; i < target.rank(); i++) {
    const Dim& a = input.shape[i == 0 ? 0 : i + 1];
    const Dim& b = target.shape[i];
    KILN_ENSURE(!(a.is_int() && b.is_int()) || a == b,
                "{}: target shape [{}] does not match input shape [{}]", op,
                dims_to_string(target.shape), dims_to_string(input.shape));
  }
  if (weight) {
    KILN_ENSURE(weight->dt == input.dt, "{}: weight type {} differs from input type {}", op,
                name_of(weight->dt), name_of(input.dt));
    KILN_ENSURE(weight->rank() == 1, "{}: weight must be 1-D, got rank {}", op, weight->rank());
    KILN_ENSURE(!(weight->shape[0].is_int() && input.shape[1].is_int()) ||
                    weight->shape[0] == input.shape[1],
                "{}: weight has {} classes, input has {}", op, weight->shape[0].to_string(),
                input.shape[1].to_string());
  }
  if (reduction == LossReduction::None) return Fact(input.dt, target.shape);
  return Fact(input.dt, std::vector<Dim>{});
}

void nll_loss_eval(const std::string& op, EvalContext& ctx, const std::vector<double>& logp,
                   const Tensor& input, const Tensor& target, const Tensor* weight,
                   LossReduction reduction, std::optional<int64_t> ignore_index) {
  int64_t n = input.dim(0), c = input.dim(1);
  // (An empty input may declare huge dims: n * c is only formed when it is not empty.)
  int64_t d = input.numel() > 0 ? input.numel() / (n * c) : 0;
  KILN_ENSURE(target.numel() == n * d, "{}: target has {} elements, expected {}", op,
              target.numel(), n * d);
  KILN_ENSURE(!weight || weight->numel() == c, "{}: weight has {} elements, expected {}", op,
              weight ? weight->numel() : 0, c);
  std::vector<int64_t> t = target.to_i64_vector();
  std::vector<double> losses(static_cast<size_t>(n * d), 0.0);
  double loss_sum = 0, weight_sum = 0;
  for (int64_t i = 0; i < n && d > 0; i++) {
    for (int64_t j = 0; j < d; j++) {
      int64_t cls = t[i * d + j];
      if (ignore_index && cls == *ignore_index) continue;
      KILN_ENSURE(cls >= 0 && cls < c, "{}: target class {} out of range [0, {})", op, cls, c);
      double w = weight ? weight->value_as_double(cls) : 1.0;
      double l = -logp[(i * c + cls) * d + j] * w;
      losses[i * d + j] = l;
      loss_sum += l;
      weight_sum += w;
    }
  }
  Shape shape;
  if (reduction == LossReduction::None) {
    shape = target.shape();
  } else {
    double v = reduction == LossReduction::Sum ? loss_sum : loss_sum / weight_sum;
    losses.assign(1, v);
  }
  Tensor& out = ctx.output(0, input.dtype(), shape);
  dispatch_numeric(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* y = out.data<T>();
    for (size_t i = 0; i < losses.size(); i++) {
      if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>)
        y[i] = T(static_cast<float>(losses[i]));
      else
        y[i] = static_cast<T>(losses[i]);
    }
  });
}

std::vector<Fact> NllLoss::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 3);
  const Fact* weight = inputs.size() > 2 ? inputs[2] : nullptr;
  return {nll_loss_fact(name(), required(inputs, 0, name()), required(inputs, 1, name()), weight,
                        reduction_)};
}

void NllLoss::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& input = required(inputs, 0, name());
  std::vector<double> logp = tensor_to_doubles(input);
  const Tensor* weight = inputs.size() > 2 ? inputs[2] : nullptr;
  nll_loss_eval(name(), ctx, logp, input, required(inputs, 1, name()), weight, reduction_,
                ignore_index_);
}

}  // namespace kiln::ops
