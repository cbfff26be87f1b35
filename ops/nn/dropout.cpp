#include "ops/nn/dropout.h"

#include <random>

#include "base/error.h"
#include "ops/nn/nn_common.h"

namespace kiln::ops {

Attributes Dropout::attributes() const {
  Attributes attrs = {{"ratio", fmt::format("{}", ratio_)}};
  if (seed_) attrs.emplace_back("seed", std::to_string(*seed_));
  return attrs;
}

std::vector<Fact> Dropout::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 3);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(is_numeric(x.dt), "Dropout: unsupported input type {}", name_of(x.dt));
  if (inputs.size() > 1 && inputs[1]) {
    KILN_ENSURE(is_float(inputs[1]->dt) && inputs[1]->rank() == 0,
                "Dropout: ratio must be a float scalar");
  }
  if (inputs.size() > 2 && inputs[2]) {
    KILN_ENSURE(inputs[2]->dt == DatumType::Bool && inputs[2]->rank() == 0,
                "Dropout: training_mode must be a bool scalar");
  }
  return {Fact(x.dt, x.shape), Fact(mask_bool_ ? DatumType::Bool : x.dt, x.shape)};
}

void Dropout::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  double ratio = ratio_;
  if (inputs.size() > 1 && inputs[1]) ratio = inputs[1]->value_as_double(0);
  bool training = inputs.size() > 2 && inputs[2] && inputs[2]->value_as_i64(0) != 0;
  if (training) {
    KILN_ENSURE(ratio >= 0 && ratio < 1, "Dropout: ratio {} must be in [0, 1)", ratio);
  }
  bool identity = !training || ratio == 0;
  Tensor* mask = nullptr;
  if (ctx.num_outputs() > 1) {
    mask = &ctx.output(1, mask_bool_ ? DatumType::Bool : x.dtype(), x.shape());
  }
  if (identity) {
    ctx.set_output(0, x);
    if (mask) {
      dispatch_pod(mask->dtype(), [&](auto tag) {
        using M = typename decltype(tag)::type;
        for (auto& v : mask->values_mut<M>()) v = nn::from_acc<M>(1.0f);
      });
    }
    return;
  }
  std::mt19937_64 rng(seed_ ? static_cast<uint64_t>(*seed_) : std::random_device{}());
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  double scale = 1.0 / (1.0 - ratio);
  dispatch_numeric(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xd = x.data<T>();
    T* yd = y.data<T>();
    for (int64_t i = 0; i < x.numel(); i++) {
      bool keep = uniform(rng) >= ratio;
      yd[i] = keep ? nn::from_acc<T>(nn::to_acc<double>(xd[i]) * scale) : nn::from_acc<T>(0.0);
      if (mask) {
        dispatch_pod(mask->dtype(), [&](auto mtag) {
          using M = typename decltype(mtag)::type;
          mask->data<M>()[i] = nn::from_acc<M>(keep ? 1.0f : 0.0f);
        });
      }
    }
  });
}

}  // namespace kiln::ops
