#include "ops/nn/layer_norm.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "base/error.h"
#include "core/broadcast.h"
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
void layer_norm(EvalContext& ctx, const Tensor& x, size_t axis, const Shape& normalized,
                const Tensor& scale, const Tensor* bias, double eps, Tensor& y, Tensor* mean_out,
                Tensor* inv_out) {
  using A = std::conditional_t<std::is_same_v<T, double>, double, float>;
  int64_t inner = shape_numel(normalized);
  int64_t outer = 1;
  for (size_t d = 0; d < axis; d++) outer *= x.dim(d);
  // Scale and bias expanded to the normalized shape, once per call, in scratch memory.
  auto expand = [&](const Tensor& p) {
    A* v = ctx.scratch<A>(static_cast<size_t>(inner));
    const T* pd = p.data<T>();
    auto put = [&](int64_t i, const std::array<int64_t, 1>& off) {
      v[i] = nn::to_acc<A>(pd[off[0]]);
    };
    if (normalized.size() <= kSmallRank) {
      std::array<std::array<int64_t, kSmallRank>, 1> strides{};
      broadcast_strides_into(p.shape(), normalized, strides[0].data());
      for_each_broadcast<1>(normalized, strides, put);
    } else {
      for_each_broadcast<1>(
          normalized, std::array<std::vector<int64_t>, 1>{broadcast_strides(p.shape(), normalized)},
          put);
    }
    return v;
  };
  const A* s = expand(scale);
  A* b = bias ? expand(*bias) : ctx.scratch<A>(static_cast<size_t>(inner));
  if (!bias) std::fill(b, b + inner, A(0));
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
  // Not name(): "LayerNormalization" is too long for a std::string without a heap allocation.
  KILN_ENSURE(inputs.size() >= 2 && inputs[0] && inputs[1], "{}: inputs 0 and 1 are required",
              name());
  const Tensor& x = *inputs[0];
  const Tensor& scale = *inputs[1];
  const Tensor* bias = inputs.size() > 2 ? inputs[2] : nullptr;
  const int64_t rank = static_cast<int64_t>(x.rank());
  KILN_ENSURE(axis_ >= -rank && axis_ < rank, "{}: axis {} out of range for rank {}", name(), axis_,
              rank);
  size_t axis = static_cast<size_t>(axis_ < 0 ? axis_ + rank : axis_);
  // Reusable shapes: no allocation per run.
  Shape& normalized = ctx.temp_shape(0);
  normalized.assign(x.shape().begin() + static_cast<long>(axis), x.shape().end());
  Shape& broadcast = ctx.temp_shape(1);
  for (const Tensor* p : {&scale, bias}) {
    if (!p) continue;
    bool fits = p->dtype() == x.dtype() && p->rank() <= normalized.size();
    if (fits) broadcast_shapes_into(normalized, p->shape(), broadcast);
    KILN_ENSURE(fits && broadcast == normalized,
                "LayerNormalization: parameter [{}] does not broadcast to [{}]",
                shape_to_string(p->shape()), shape_to_string(normalized));
  }
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  Shape& stat_shape = ctx.temp_shape(2);
  if (ctx.num_outputs() > 1) {
    stat_shape.assign(x.shape().begin(), x.shape().end());
    for (size_t i = axis; i < stat_shape.size(); i++) stat_shape[i] = 1;
  }
  Tensor* mean = ctx.num_outputs() > 1 ? &ctx.output(1, stash_type_, stat_shape) : nullptr;
  Tensor* inv = ctx.num_outputs() > 2 ? &ctx.output(2, stash_type_, stat_shape) : nullptr;
  switch (x.dtype()) {
    case DatumType::F32:
      layer_norm<float>(ctx, x, axis, normalized, scale, bias, epsilon_, y, mean, inv);
      break;
    case DatumType::F64:
      layer_norm<double>(ctx, x, axis, normalized, scale, bias, epsilon_, y, mean, inv);
      break;
    case DatumType::F16:
      layer_norm<f16>(ctx, x, axis, normalized, scale, bias, epsilon_, y, mean, inv);
      break;
    case DatumType::BF16:
      layer_norm<bf16>(ctx, x, axis, normalized, scale, bias, epsilon_, y, mean, inv);
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
