#include "ops/nn/global_pool.h"

#include <cmath>
#include <limits>

#include "base/error.h"
#include "base/threading.h"
#include "kernels/pool/pool.h"
#include "ops/nn/nn_common.h"

namespace kiln::ops {

std::string GlobalPool::name() const {
  switch (kind_) {
    case PoolKind::Max:
      return "GlobalMaxPool";
    case PoolKind::Average:
      return "GlobalAveragePool";
    case PoolKind::Lp:
      return "GlobalLpPool";
  }
  return "GlobalPool";
}

Attributes GlobalPool::attributes() const {
  if (kind_ == PoolKind::Lp) return {{"p", fmt::format("{}", p_)}};
  return {};
}

std::vector<Fact> GlobalPool::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(is_float(x.dt), "{}: input type {} is not a float type", name(), name_of(x.dt));
  KILN_ENSURE(x.rank() >= 2, "{}: input rank {} must be at least 2", name(), x.rank());
  std::vector<Dim> shape = x.shape;
  for (size_t i = 2; i < shape.size(); i++) shape[i] = 1;
  return {Fact(x.dt, shape)};
}

Cost GlobalPool::cost(const FactRefs& inputs) const {
  std::vector<Fact> out = output_facts(inputs);
  Cost c;
  if (kind_ == PoolKind::Lp) c.other = inputs[0]->volume();
  return c;
}

namespace {

template <typename T>
void global_pool(const Tensor& x, PoolKind kind, double p_norm, Tensor& y) {
  using A = std::conditional_t<std::is_same_v<T, double>, double, float>;
  int64_t planes = x.rank() >= 2 ? x.dim(0) * x.dim(1) : 0;
  int64_t plane = planes > 0 ? x.numel() / planes : 0;
  const T* xd = x.data<T>();
  T* yd = y.data<T>();
  A p = static_cast<A>(p_norm);
  for (int64_t i = 0; i < planes; i++) {
    const T* xp = xd + i * plane;
    A r;
    if (kind == PoolKind::Max) {
      r = -std::numeric_limits<A>::infinity();
      for (int64_t j = 0; j < plane; j++) {
        A v = nn::to_acc<A>(xp[j]);
        if (v > r || std::isnan(v)) r = v;
      }
    } else {
      // Sums accumulate in double: planes can be large (long 1-D signals).
      double sum = 0;
      for (int64_t j = 0; j < plane; j++) {
        A v = nn::to_acc<A>(xp[j]);
        sum += kind == PoolKind::Lp ? std::pow(std::abs(v), p) : v;
      }
      r = kind == PoolKind::Lp ? static_cast<A>(std::pow(sum, 1.0 / p_norm))
                               : static_cast<A>(sum / static_cast<double>(plane));
    }
    yd[i] = nn::from_acc<T>(r);
  }
}

}  // namespace

void GlobalPool::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  // Not name(): "GlobalAveragePool" is too long for a std::string without a heap allocation.
  KILN_ENSURE(!inputs.empty() && inputs[0], "{}: input 0 is required", name());
  const Tensor& x = *inputs[0];
  KILN_ENSURE(x.rank() >= 2, "{}: input rank {} must be at least 2", name(), x.rank());
  Shape& shape = ctx.temp_shape(0);
  shape.assign(x.shape().begin(), x.shape().end());
  for (size_t i = 2; i < shape.size(); i++) shape[i] = 1;
  Tensor& y = ctx.output(0, x.dtype(), shape);
  switch (x.dtype()) {
    case DatumType::F32:
      if (kind_ == PoolKind::Average && x.numel() > 0) {
        // Vectorized (sums in double, see kernels/pool/pool.h); planes split over threads.
        const int64_t planes = x.dim(0) * x.dim(1), n = x.numel() / planes;
        const float* xd = x.data<float>();
        float* yd = y.data<float>();
        const kernels::PoolKernels& k = kernels::pool_kernels();
        parallel_for_work(planes, n, [&](int64_t p0, int64_t p1) {
          k.average_planes(xd + p0 * n, yd + p0, p1 - p0, n);
        });
      } else {
        global_pool<float>(x, kind_, p_, y);
      }
      break;
    case DatumType::F64:
      global_pool<double>(x, kind_, p_, y);
      break;
    case DatumType::F16:
      global_pool<f16>(x, kind_, p_, y);
      break;
    case DatumType::BF16:
      global_pool<bf16>(x, kind_, p_, y);
      break;
    default:
      fail("{}: unsupported type {}", name(), name_of(x.dtype()));
  }
}

}  // namespace kiln::ops
