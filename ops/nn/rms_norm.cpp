#include "ops/nn/rms_norm.h"

#include <array>
#include <cmath>

#include "base/error.h"
#include "core/broadcast.h"
#include "ops/nn/nn_common.h"

namespace kiln::ops {

std::vector<Fact> RmsNorm::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 2);
  const Fact& x = required(inputs, 0, name());
  const Fact& scale = required(inputs, 1, name());
  KILN_ENSURE(is_float(x.dt), "RMSNormalization: input type {} is not a float type", name_of(x.dt));
  KILN_ENSURE(scale.dt == x.dt, "RMSNormalization: scale type {} differs from {}",
              name_of(scale.dt), name_of(x.dt));
  normalize_axis(axis_, x.rank(), name());
  KILN_ENSURE(scale.rank() <= x.rank(), "RMSNormalization: scale of rank {} for input rank {}",
              scale.rank(), x.rank());
  auto out = broadcast_dims({x.shape, scale.shape});
  KILN_ENSURE(out == x.shape, "RMSNormalization: scale [{}] does not broadcast to input [{}]",
              dims_to_string(scale.shape), dims_to_string(x.shape));
  return {Fact(x.dt, x.shape)};
}

namespace {

template <typename T>
void rms_norm(const Tensor& x, const Tensor& scale, size_t axis, double eps, Tensor& y) {
  using A = nn::Acc<T>;  // float for f16/bf16/f32, double for f64
  int64_t inner = 1;
  for (size_t d = axis; d < x.rank(); d++) inner *= x.dim(d);
  const int64_t outer = inner ? x.numel() / inner : 0;
  std::array<int64_t, kSmallRank> small{};
  std::vector<int64_t> large;
  int64_t* strides = x.rank() > kSmallRank ? (large.resize(x.rank()), large.data()) : small.data();
  broadcast_strides_into(scale.shape(), x.shape(), strides);
  const T* xd = x.data<T>();
  const T* sd = scale.data<T>();
  T* yd = y.data<T>();
  for (int64_t o = 0; o < outer; o++) {
    const T* row = xd + o * inner;
    double sq = 0;
    for (int64_t j = 0; j < inner; j++) {
      double v = nn::to_acc<double>(row[j]);
      sq += v * v;
    }
    const A inv = static_cast<A>(1.0 / std::sqrt(sq / static_cast<double>(inner) + eps));
    for (int64_t j = 0; j < inner; j++) {
      int64_t s = 0;  // scale offset of element o * inner + j
      int64_t flat = o * inner + j;
      for (size_t d = x.rank(); d-- > 0;) {
        s += (flat % x.dim(d)) * strides[d];
        flat /= x.dim(d);
      }
      // One rounding to T at the end, as ONNX Runtime does (the spec's function body rounds
      // the normalized value to T before the scale: at most one ulp of T apart).
      const A normalized = nn::to_acc<A>(row[j]) * inv;
      yd[o * inner + j] = nn::from_acc<T>(normalized * nn::to_acc<A>(sd[s]));
    }
  }
}

}  // namespace

void RmsNorm::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  const Tensor& scale = required(inputs, 1, name());
  KILN_ENSURE(scale.dtype() == x.dtype(), "RMSNormalization: scale type {} differs from {}",
              name_of(scale.dtype()), name_of(x.dtype()));
  KILN_ENSURE(broadcast_shapes({x.shape(), scale.shape()}) == x.shape(),
              "RMSNormalization: scale [{}] does not broadcast to input [{}]",
              shape_to_string(scale.shape()), shape_to_string(x.shape()));
  size_t axis = normalize_axis(axis_, x.rank(), name());
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  switch (x.dtype()) {
    case DatumType::F32:
      return rms_norm<float>(x, scale, axis, epsilon_, y);
    case DatumType::F64:
      return rms_norm<double>(x, scale, axis, epsilon_, y);
    case DatumType::F16:
      return rms_norm<f16>(x, scale, axis, epsilon_, y);
    case DatumType::BF16:
      return rms_norm<bf16>(x, scale, axis, epsilon_, y);
    default:
      fail("RMSNormalization: unsupported type {}", name_of(x.dtype()));
  }
}

}  // namespace kiln::ops
