#include "ops/nn/group_norm.h"

#include <cmath>

#include "base/error.h"
#include "ops/nn/nn_common.h"

namespace kiln::ops {

Attributes GroupNorm::attributes() const {
  return {{"num_groups", std::to_string(num_groups_)},
          {"epsilon", fmt::format("{}", epsilon_)},
          {"scale", per_channel_ ? "per_channel" : "per_group"}};
}

std::vector<Fact> GroupNorm::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 3, 3);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(is_float(x.dt), "GroupNormalization: input type {} is not a float type",
              name_of(x.dt));
  KILN_ENSURE(x.rank() >= 2, "GroupNormalization: input rank {} must be at least 2", x.rank());
  KILN_ENSURE(num_groups_ > 0, "GroupNormalization: num_groups {} must be positive", num_groups_);
  if (auto c = x.shape[1].as_int())
    KILN_ENSURE(*c % num_groups_ == 0,
                "GroupNormalization: {} channels are not divisible into {} groups", *c,
                num_groups_);
  for (size_t i = 1; i < 3; i++) {
    const Fact& p = required(inputs, i, name());
    KILN_ENSURE(p.dt == x.dt, "GroupNormalization: input {} type {} differs from {}", i,
                name_of(p.dt), name_of(x.dt));
    Dim want = per_channel_ ? x.shape[1] : Dim(num_groups_);
    KILN_ENSURE(p.rank() == 1 && p.shape[0] == want,
                "GroupNormalization: input {} has shape [{}], expected [{}]", i,
                dims_to_string(p.shape), want.to_string());
  }
  return {Fact(x.dt, x.shape)};
}

namespace {

template <typename T>
void group_norm(const Tensor& x, const Tensor& scale, const Tensor& bias, int64_t groups,
                double eps, bool per_channel, Tensor& y) {
  const int64_t n = x.dim(0), c = x.dim(1);
  const int64_t plane = n * c > 0 ? x.numel() / (n * c) : 0;
  const int64_t per_group = c / groups;
  const int64_t group_size = per_group * plane;
  const T* xd = x.data<T>();
  const T* sd = scale.data<T>();
  const T* bd = bias.data<T>();
  T* yd = y.data<T>();
  for (int64_t b = 0; b < n; b++) {
    for (int64_t g = 0; g < groups; g++) {
      const int64_t base = (b * c + g * per_group) * plane;
      double sum = 0;
      for (int64_t j = 0; j < group_size; j++) sum += nn::to_acc<double>(xd[base + j]);
      const double mean = group_size ? sum / static_cast<double>(group_size) : 0.0;
      double sq = 0;
      for (int64_t j = 0; j < group_size; j++) {
        double d = nn::to_acc<double>(xd[base + j]) - mean;
        sq += d * d;
      }
      const double inv =
          1.0 / std::sqrt((group_size ? sq / static_cast<double>(group_size) : 0) + eps);
      for (int64_t k = 0; k < per_group; k++) {
        const int64_t ch = g * per_group + k;
        const double s = nn::to_acc<double>(sd[per_channel ? ch : g]);
        const double t = nn::to_acc<double>(bd[per_channel ? ch : g]);
        const int64_t off = base + k * plane;
        for (int64_t j = 0; j < plane; j++)
          yd[off + j] = nn::from_acc<T>((nn::to_acc<double>(xd[off + j]) - mean) * inv * s + t);
      }
    }
  }
}

}  // namespace

void GroupNorm::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  const Tensor& scale = required(inputs, 1, name());
  const Tensor& bias = required(inputs, 2, name());
  KILN_ENSURE(x.rank() >= 2 && x.dim(1) % num_groups_ == 0,
              "GroupNormalization: {} channels are not divisible into {} groups",
              x.rank() >= 2 ? x.dim(1) : 0, num_groups_);
  const int64_t want = per_channel_ ? x.dim(1) : num_groups_;
  KILN_ENSURE(scale.numel() == want && bias.numel() == want && scale.dtype() == x.dtype() &&
                  bias.dtype() == x.dtype(),
              "GroupNormalization: scale and bias must hold {} values of the input type", want);
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  switch (x.dtype()) {
    case DatumType::F32:
      return group_norm<float>(x, scale, bias, num_groups_, epsilon_, per_channel_, y);
    case DatumType::F64:
      return group_norm<double>(x, scale, bias, num_groups_, epsilon_, per_channel_, y);
    case DatumType::F16:
      return group_norm<f16>(x, scale, bias, num_groups_, epsilon_, per_channel_, y);
    case DatumType::BF16:
      return group_norm<bf16>(x, scale, bias, num_groups_, epsilon_, per_channel_, y);
    default:
      fail("GroupNormalization: unsupported type {}", name_of(x.dtype()));
  }
}

}  // namespace kiln::ops
