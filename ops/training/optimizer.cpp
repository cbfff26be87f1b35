#include "ops/training/optimizer.h"

#include <cmath>

#include "base/error.h"

namespace kiln::ops {

std::string Optimizer::name() const {
  switch (config_.kind) {
    case OptimizerKind::Adagrad:
      return "Adagrad";
    case OptimizerKind::Momentum:
    case OptimizerKind::Nesterov:
      return "Momentum";
    case OptimizerKind::Adam:
      return "Adam";
  }
  return "Optimizer";
}

Attributes Optimizer::attributes() const {
  return {{"alpha", std::to_string(config_.alpha)},
          {"beta", std::to_string(config_.beta)},
          {"epsilon", std::to_string(config_.epsilon)},
          {"norm_coefficient", std::to_string(config_.norm_coefficient)}};
}

size_t Optimizer::tensor_count(size_t num_inputs) const {
  size_t groups = 2 + state_groups();  // X, G, states
  KILN_ENSURE(num_inputs > 2 && (num_inputs - 2) % groups == 0,
              "{}: expects R, T and {} groups of tensors, got {} inputs", name(), groups,
              num_inputs);
  return (num_inputs - 2) / groups;
}

std::vector<Fact> Optimizer::output_facts(const FactRefs& inputs) const {
  size_t n = tensor_count(inputs.size());
  for (size_t i = 0; i < inputs.size(); i++) required(inputs, i, name());
  KILN_ENSURE(inputs[0]->rank() == 0 && is_float(inputs[0]->dt), "{}: R must be a float scalar",
              name());
  KILN_ENSURE(inputs[1]->rank() == 0 && is_integer(inputs[1]->dt),
              "{}: T must be an integer scalar", name());
  std::vector<Fact> out;
  for (size_t group = 0; group < 1 + state_groups(); group++)
    for (size_t i = 0; i < n; i++) {
      const Fact& x = *inputs[2 + i];
      const Fact& other = *inputs[2 + (group == 0 ? n : (1 + group) * n) + i];
      KILN_ENSURE(x.same_type_and_shape(other), "{}: tensor {} and its gradient/state differ",
                  name(), i);
      out.emplace_back(x.dt, x.shape);
    }
  return out;
}

void Optimizer::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  size_t n = tensor_count(inputs.size());
  double r = inputs[0]->value_as_double(0);
  int64_t t = inputs[1]->value_as_i64(0);
  const auto& c = config_;
  for (size_t i = 0; i < n; i++) {
    const Tensor& x = *inputs[2 + i];
    const Tensor& g = *inputs[2 + n + i];
    const Tensor& s1 = *inputs[2 + 2 * n + i];
    KILN_ENSURE(x.dtype() == DatumType::F32 || x.dtype() == DatumType::F64,
                "{}: tensors must be f32 or f64", name());
    Tensor& x_new = ctx.output(i, x.dtype(), x.shape());
    Tensor& s1_new = ctx.output(n + i, x.dtype(), x.shape());
    Tensor* s2_new = state_groups() == 2 ? &ctx.output(2 * n + i, x.dtype(), x.shape()) : nullptr;
    const Tensor* s2 = state_groups() == 2 ? inputs[2 + 3 * n + i] : nullptr;
    for (int64_t k = 0; k < x.numel(); k++) {
      double xv = x.value_as_double(k), gv = c.norm_coefficient * xv + g.value_as_double(k);
      double s1v = s1.value_as_double(k);
      double xn = 0, s1n = 0, s2n = 0;
      switch (c.kind) {
        case OptimizerKind::Adagrad: {
          double rate = r / (1.0 + static_cast<double>(t) * c.decay_factor);
          s1n = s1v + gv * gv;
          xn = xv - rate * gv / (std::sqrt(s1n) + c.epsilon);
          break;
        }
        case OptimizerKind::Momentum:
        case OptimizerKind::Nesterov: {
          double beta = t > 0 ? c.beta : 1.0;  // the first step takes the whole gradient
          s1n = c.alpha * s1v + beta * gv;
          xn = c.kind == OptimizerKind::Momentum ? xv - r * s1n : xv - r * (gv + c.alpha * s1n);
          break;
        }
        case OptimizerKind::Adam: {
          s1n = c.alpha * s1v + (1 - c.alpha) * gv;
          s2n = c.beta * s2->value_as_double(k) + (1 - c.beta) * gv * gv;
          double rate = r;
          if (t > 0)
            rate = r * std::sqrt(1 - std::pow(c.beta, static_cast<double>(t))) /
                   (1 - std::pow(c.alpha, static_cast<double>(t)));
          xn = (1 - c.norm_coefficient_post) * (xv - rate * s1n / (std::sqrt(s2n) + c.epsilon));
          break;
        }
      }
      auto store = [&](Tensor& out, double v) {
        if (out.dtype() == DatumType::F32)
          out.data<float>()[k] = static_cast<float>(v);
        else
          out.data<double>()[k] = v;
      };
      store(x_new, xn);
      store(s1_new, s1n);
      if (s2_new) store(*s2_new, s2n);
    }
  }
}

}  // namespace kiln::ops
