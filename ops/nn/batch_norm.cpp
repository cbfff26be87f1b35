#include "ops/nn/batch_norm.h"

#include <cmath>

#include "base/error.h"
#include "ops/nn/nn_common.h"

namespace kiln::ops {

Attributes BatchNorm::attributes() const {
  Attributes attrs = {{"epsilon", fmt::format("{}", epsilon_)}};
  if (training_) {
    attrs.emplace_back("momentum", fmt::format("{}", momentum_));
    attrs.emplace_back("training_mode", "1");
  }
  return attrs;
}

std::vector<Fact> BatchNorm::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 5, 5);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(is_float(x.dt), "BatchNormalization: input type {} is not a float type",
              name_of(x.dt));
  KILN_ENSURE(x.rank() >= 2, "BatchNormalization: input rank {} must be at least 2", x.rank());
  for (size_t i = 1; i < 5; i++) {
    const Fact& p = required(inputs, i, name());
    KILN_ENSURE(is_float(p.dt), "BatchNormalization: input {} type {} is not a float type", i,
                name_of(p.dt));
    KILN_ENSURE(p.rank() == 1 && p.shape[0] == x.shape[1],
                "BatchNormalization: input {} has shape [{}], expected [{}]", i,
                dims_to_string(p.shape), x.shape[1].to_string());
  }
  std::vector<Fact> out = {Fact(x.dt, x.shape)};
  if (training_) {
    out.emplace_back(inputs[3]->dt, inputs[3]->shape);
    out.emplace_back(inputs[4]->dt, inputs[4]->shape);
  }
  return out;
}

Cost BatchNorm::cost(const FactRefs& inputs) const {
  // Inference: one multiply-add per element with a per-channel scale and offset.
  const Fact& x = required(inputs, 0, name());
  Cost c;
  c.fma = x.volume();
  c.fma_type = x.dt;
  for (size_t i = 1; i < inputs.size(); i++)
    if (inputs[i] && inputs[i]->value)
      c.params_bytes += Dim(static_cast<int64_t>(inputs[i]->value->nbytes()));
  return c;
}

namespace {

std::vector<double> as_doubles(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); i++) v[static_cast<size_t>(i)] = t.value_as_double(i);
  return v;
}

template <typename T>
void batch_norm(const Tensor& x, const std::vector<double>& a, const std::vector<double>& b,
                Tensor& y) {
  using A = std::conditional_t<std::is_same_v<T, double>, double, float>;
  int64_t n = x.dim(0), c = x.dim(1);
  int64_t plane = n * c > 0 ? x.numel() / (n * c) : 0;
  const T* xd = x.data<T>();
  T* yd = y.data<T>();
  for (int64_t i = 0; i < n * c; i++) {
    A ai = static_cast<A>(a[static_cast<size_t>(i % c)]);
    A bi = static_cast<A>(b[static_cast<size_t>(i % c)]);
    for (int64_t j = 0; j < plane; j++) {
      yd[i * plane + j] = nn::from_acc<T>(nn::to_acc<A>(xd[i * plane + j]) * ai + bi);
    }
  }
}

}  // namespace

void BatchNorm::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  KILN_ENSURE(x.rank() >= 2, "BatchNormalization: input rank {} must be at least 2", x.rank());
  int64_t c = x.dim(1);
  std::vector<std::vector<double>> p;
  for (size_t i = 1; i < 5; i++) {
    const Tensor& t = required(inputs, i, name());
    KILN_ENSURE(t.numel() == c, "BatchNormalization: input {} has {} values, expected {}", i,
                t.numel(), c);
    p.push_back(as_doubles(t));
  }
  const auto &scale = p[0], &bias = p[1];
  std::vector<double> mean = p[2], var = p[3];
  if (training_) {
    // Batch statistics over every axis but the channels (population variance).
    int64_t n = x.dim(0), plane = n * c > 0 ? x.numel() / (n * c) : 0;
    std::vector<double> sum(static_cast<size_t>(c), 0.0), sq(static_cast<size_t>(c), 0.0);
    for (int64_t i = 0; i < n * c; i++) {
      for (int64_t j = 0; j < plane; j++) {
        double v = x.value_as_double(i * plane + j);
        sum[static_cast<size_t>(i % c)] += v;
      }
    }
    double count = static_cast<double>(n * plane);
    for (auto& s : sum) s /= count;
    for (int64_t i = 0; i < n * c; i++) {
      double m = sum[static_cast<size_t>(i % c)];
      for (int64_t j = 0; j < plane; j++) {
        double d = x.value_as_double(i * plane + j) - m;
        sq[static_cast<size_t>(i % c)] += d * d;
      }
    }
    for (auto& s : sq) s /= count;
    double mom = momentum_;
    if (ctx.num_outputs() > 2) {
      Tensor& rm = ctx.output(1, inputs[3]->dtype(), inputs[3]->shape());
      Tensor& rv = ctx.output(2, inputs[4]->dtype(), inputs[4]->shape());
      dispatch_numeric(rm.dtype(), [&](auto tag) {
        using U = typename decltype(tag)::type;
        for (int64_t i = 0; i < c; i++) {
          size_t k = static_cast<size_t>(i);
          rm.data<U>()[i] = nn::from_acc<U>(static_cast<float>(mean[k] * mom + sum[k] * (1 - mom)));
        }
      });
      dispatch_numeric(rv.dtype(), [&](auto tag) {
        using U = typename decltype(tag)::type;
        for (int64_t i = 0; i < c; i++) {
          size_t k = static_cast<size_t>(i);
          rv.data<U>()[i] = nn::from_acc<U>(static_cast<float>(var[k] * mom + sq[k] * (1 - mom)));
        }
      });
    }
    mean = sum;
    var = sq;
  }
  // y = x * a + b with a = scale / sqrt(var + eps), b = bias - mean * a.
  std::vector<double> a(static_cast<size_t>(c)), b(static_cast<size_t>(c));
  for (size_t i = 0; i < a.size(); i++) {
    a[i] = scale[i] / std::sqrt(var[i] + static_cast<double>(epsilon_));
    b[i] = bias[i] - mean[i] * a[i];
  }
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  switch (x.dtype()) {
    case DatumType::F32:
      batch_norm<float>(x, a, b, y);
      break;
    case DatumType::F64:
      batch_norm<double>(x, a, b, y);
      break;
    case DatumType::F16:
      batch_norm<f16>(x, a, b, y);
      break;
    case DatumType::BF16:
      batch_norm<bf16>(x, a, b, y);
      break;
    default:
      fail("BatchNormalization: unsupported type {}", name_of(x.dtype()));
  }
}

}  // namespace kiln::ops
