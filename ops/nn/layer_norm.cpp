#include "ops/nn/layer_norm.h"

#include <cmath>

#include "core/broadcast.h"
#include "core/error.h"
#include "ops/nn/layer_norm_f32.h"
#include "ops/nn/nn_common.h"

namespace kiln::ops {

Attributes LayerNorm::attributes() const {
  return {{"axis", std::to_string(axis_)},
          {"epsilon", fmt::format("{}", epsilon_)},
          {"stash_type", std::string(name_of(stash_type_))}};
}

std::vector<Fact> LayerNorm::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 3);
  const Fact& x = required(inputs, 0, name());
  const Fact& scale = required(inputs, 1, name());
  KILN_ENSURE(is_float(x.dt), "LayerNormalization: input type {} is not a float type",
              name_of(x.dt));
  KILN_ENSURE(is_float(stash_type_), "LayerNormalization: stash type {} is not a float type",
              name_of(stash_type_));
  size_t axis = normalize_axis(axis_, x.rank(), name());
  std::vector<Dim> normalized(x.shape.begin() + static_cast<long>(axis), x.shape.end());
  std::vector<const Fact*> params = {&scale};
  if (inputs.size() > 2 && inputs[2]) params.push_back(inputs[2]);
  for (const Fact* p : params) {
    KILN_ENSURE(p->dt == x.dt, "LayerNormalization: parameter type {} differs from {}",
                name_of(p->dt), name_of(x.dt));
    KILN_ENSURE(p->rank() <= normalized.size(),
                "LayerNormalization: parameter shape [{}] does not broadcast to [{}]",
                dims_to_string(p->shape), dims_to_string(normalized));
    std::vector<Dim> b = broadcast_dims({normalized, p->shape});
    KILN_ENSURE(b == normalized,
                "LayerNormalization: parameter shape [{}] does not broadcast to [{}]",
                dims_to_string(p->shape), dims_to_string(normalized));
  }
  std::vector<Dim> stat_shape = x.shape;
  for (size_t i = axis; i < stat_shape.size(); i++) stat_shape[i] = 1;
  return {Fact(x.dt, x.shape), Fact(stash_type_, stat_shape), Fact(stash_type_, stat_shape)};
}

Cost LayerNorm::cost(const FactRefs& inputs) const {
  const Fact& x = required(inputs, 0, name());
  size_t axis = normalize_axis(axis_, x.rank(), name());
  Cost c;
  c.other =
      dims_product(std::vector<Dim>(x.shape.begin(), x.shape.begin() + static_cast<long>(axis)));
  return c;
}

namespace {

template <typename T>
void layer_norm(const Tensor& x, size_t axis, const Tensor& scale, const Tensor* bias, double eps,
                Tensor& y, Tensor* mean_out, Tensor* inv_out) {
  using A = std::conditional_t<std::is_same_v<T, double>, double, float>;
  Shape normalized(x.shape().begin() + static_cast<long>(axis), x.shape().end());
  int64_t inner = shape_numel(normalized);
  int64_t outer =
      inner > 0
          ? x.numel() / inner
          : shape_numel(Shape(x.shape().begin(), x.shape().begin() + static_cast<long>(axis)));
  // Scale and bias expanded to the normalized shape, once.
  auto expand = [&](const Tensor& p) {
    std::vector<A> v(static_cast<size_t>(inner));
    const T* pd = p.data<T>();
    for_each_broadcast<1>(normalized, {broadcast_strides(p.shape(), normalized)},
                          [&](int64_t i, const std::array<int64_t, 1>& off) {
                            v[static_cast<size_t>(i)] = nn::to_acc<A>(pd[off[0]]);
                          });
    return v;
  };
  std::vector<A> s = expand(scale);
  std::vector<A> b = bias ? expand(*bias) : std::vector<A>(static_cast<size_t>(inner), A(0));
  const T* xd = x.data<T>();
  T* yd = y.data<T>();
  for (int64_t i = 0; i < outer; i++) {
    const T* xr = xd + i * inner;
    double sum = 0, sq = 0;
    for (int64_t j = 0; j < inner; j++) sum += nn::to_acc<double>(xr[j]);
    double mean = sum / static_cast<double>(inner);
    for (int64_t j = 0; j < inner; j++) {
      double d = nn::to_acc<double>(xr[j]) - mean;
      sq += d * d;
    }
    double inv = 1.0 / std::sqrt(sq / static_cast<double>(inner) + eps);
    for (int64_t j = 0; j < inner; j++) {
      size_t k = static_cast<size_t>(j);
      A norm = static_cast<A>((nn::to_acc<double>(xr[j]) - mean) * inv);
      yd[i * inner + j] = nn::from_acc<T>(norm * s[k] + b[k]);
    }
    auto store = [&](Tensor* t, double v) {
      if (!t) return;
      dispatch_numeric(t->dtype(), [&](auto tag) {
        using U = typename decltype(tag)::type;
        t->data<U>()[i] = nn::from_acc<U>(v);
      });
    };
    store(mean_out, mean);
    store(inv_out, inv);
  }
}

}  // namespace

void LayerNorm::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  const Tensor& scale = required(inputs, 1, name());
  const Tensor* bias = inputs.size() > 2 ? inputs[2] : nullptr;
  size_t axis = normalize_axis(axis_, x.rank(), name());
  Shape normalized(x.shape().begin() + static_cast<long>(axis), x.shape().end());
  for (const Tensor* p : {&scale, bias}) {
    if (!p) continue;
    KILN_ENSURE(p->dtype() == x.dtype() && p->rank() <= normalized.size() &&
                    broadcast_shapes({normalized, p->shape()}) == normalized,
                "LayerNormalization: parameter [{}] does not broadcast to [{}]",
                shape_to_string(p->shape()), shape_to_string(normalized));
  }
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  Shape stat_shape = x.shape();
  for (size_t i = axis; i < stat_shape.size(); i++) stat_shape[i] = 1;
  Tensor* mean = ctx.num_outputs() > 1 ? &ctx.output(1, stash_type_, stat_shape) : nullptr;
  Tensor* inv = ctx.num_outputs() > 2 ? &ctx.output(2, stash_type_, stat_shape) : nullptr;
  switch (x.dtype()) {
    case DatumType::F32:
      layer_norm<float>(x, axis, scale, bias, epsilon_, y, mean, inv);
      break;
    case DatumType::F64:
      layer_norm<double>(x, axis, scale, bias, epsilon_, y, mean, inv);
      break;
    case DatumType::F16:
      layer_norm<f16>(x, axis, scale, bias, epsilon_, y, mean, inv);
      break;
    case DatumType::BF16:
      layer_norm<bf16>(x, axis, scale, bias, epsilon_, y, mean, inv);
      break;
    default:
      fail("LayerNormalization: unsupported type {}", name_of(x.dtype()));
  }
}

OpPtr LayerNorm::codegen(const FactRefs& inputs) const {
  if (inputs.size() < 2 || !inputs[0] || !inputs[1]) return nullptr;
  const Fact& x = *inputs[0];
  const Fact* bias = inputs.size() > 2 ? inputs[2] : nullptr;
  if (x.dt != DatumType::F32 || stash_type_ != DatumType::F32) return nullptr;
  if (!inputs[1]->value || (bias && !bias->value)) return nullptr;
  size_t axis = normalize_axis(axis_, x.rank(), name());
  Shape normalized;
  for (size_t i = axis; i < x.rank(); i++) {
    if (!x.shape[i].is_int()) return nullptr;
    normalized.push_back(x.shape[i].to_int());
  }
  if (shape_numel(normalized) == 0) return nullptr;
  return std::make_shared<LayerNormF32>(std::make_shared<LayerNorm>(*this), axis, normalized,
                                        *inputs[1]->value, bias ? bias->value.get() : nullptr);
}

}  // namespace kiln::ops
