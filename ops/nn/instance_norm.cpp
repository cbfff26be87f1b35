#include "ops/nn/instance_norm.h"

#include <cmath>

#include "base/error.h"
#include "ops/nn/nn_common.h"

namespace kiln::ops {

std::vector<Fact> InstanceNorm::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 3, 3);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(is_float(x.dt), "InstanceNormalization: input type {} is not a float type",
              name_of(x.dt));
  KILN_ENSURE(x.rank() >= 3, "InstanceNormalization: input rank {} must be at least 3", x.rank());
  for (size_t i = 1; i < 3; i++) {
    const Fact& p = required(inputs, i, name());
    KILN_ENSURE(p.dt == x.dt, "InstanceNormalization: input {} type {} differs from {}", i,
                name_of(p.dt), name_of(x.dt));
    KILN_ENSURE(p.rank() == 1 && p.shape[0] == x.shape[1],
                "InstanceNormalization: input {} has shape [{}], expected [{}]", i,
                dims_to_string(p.shape), x.shape[1].to_string());
  }
  return {Fact(x.dt, x.shape)};
}

namespace {

template <typename T>
void instance_norm(const Tensor& x, const Tensor& scale, const Tensor& bias, double eps,
                   Tensor& y) {
  using A = std::conditional_t<std::is_same_v<T, double>, double, float>;
  int64_t n = x.dim(0), c = x.dim(1);
  int64_t plane = n * c > 0 ? x.numel() / (n * c) : 0;
  const T* xd = x.data<T>();
  T* yd = y.data<T>();
  for (int64_t i = 0; i < n * c; i++) {
    const T* xp = xd + i * plane;
    double sum = 0, sq = 0;
    for (int64_t j = 0; j < plane; j++) sum += nn::to_acc<double>(xp[j]);
    double mean = sum / static_cast<double>(plane);
    for (int64_t j = 0; j < plane; j++) {
      double d = nn::to_acc<double>(xp[j]) - mean;
      sq += d * d;
    }
    double var = sq / static_cast<double>(plane);
    double a = nn::to_acc<double>(scale.data<T>()[i % c]) / std::sqrt(var + eps);
    double b = nn::to_acc<double>(bias.data<T>()[i % c]) - mean * a;
    A af = static_cast<A>(a), bf = static_cast<A>(b);
    for (int64_t j = 0; j < plane; j++) {
      yd[i * plane + j] = nn::from_acc<T>(nn::to_acc<A>(xp[j]) * af + bf);
    }
  }
}

}  // namespace

void InstanceNorm::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  const Tensor& scale = required(inputs, 1, name());
  const Tensor& bias = required(inputs, 2, name());
  KILN_ENSURE(x.rank() >= 3, "InstanceNormalization: input rank {} must be at least 3", x.rank());
  KILN_ENSURE(scale.numel() == x.dim(1) && bias.numel() == x.dim(1) && scale.dtype() == x.dtype() &&
                  bias.dtype() == x.dtype(),
              "InstanceNormalization: scale and bias must hold {} values of the input type",
              x.dim(1));
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  switch (x.dtype()) {
    case DatumType::F32:
      instance_norm<float>(x, scale, bias, epsilon_, y);
      break;
    case DatumType::F64:
      instance_norm<double>(x, scale, bias, epsilon_, y);
      break;
    case DatumType::F16:
      instance_norm<f16>(x, scale, bias, epsilon_, y);
      break;
    case DatumType::BF16:
      instance_norm<bf16>(x, scale, bias, epsilon_, y);
      break;
    default:
      fail("InstanceNormalization: unsupported type {}", name_of(x.dtype()));
  }
}

}  // namespace kiln::ops
