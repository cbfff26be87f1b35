#include "ops/nn/mvn.h"

#include <cmath>

#include "base/error.h"
#include "ops/nn/nn_common.h"
#include "ops/nn/pool_geometry.h"

namespace kiln::ops {

Attributes MeanVarianceNorm::attributes() const {
  return {{"axes", ints_to_string(axes_)}};
}

std::vector<Fact> MeanVarianceNorm::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(is_float(x.dt), "MeanVarianceNormalization: input type {} is not a float type",
              name_of(x.dt));
  for (int64_t a : axes_) normalize_axis(a, x.rank(), name());
  return {Fact(x.dt, x.shape)};
}

namespace {

template <typename T>
void mvn(const Tensor& x, const std::vector<bool>& reduced, Tensor& y) {
  const Shape& shape = x.shape();
  size_t rank = shape.size();
  // Index of each element's statistics group: its coordinates on the kept axes.
  Shape group_shape;
  for (size_t i = 0; i < rank; i++) group_shape.push_back(reduced[i] ? 1 : shape[i]);
  std::vector<int64_t> gstrides = contiguous_strides(group_shape);
  int64_t groups = shape_numel(group_shape);
  std::vector<int64_t> group_of(static_cast<size_t>(x.numel()));
  std::vector<int64_t> idx(rank, 0);
  for (int64_t e = 0; e < x.numel(); e++) {
    int64_t g = 0;
    for (size_t i = 0; i < rank; i++) g += reduced[i] ? 0 : idx[i] * gstrides[i];
    group_of[static_cast<size_t>(e)] = g;
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  std::vector<double> sum(static_cast<size_t>(groups), 0.0), sq(sum), cnt(sum);
  const T* xd = x.data<T>();
  for (int64_t e = 0; e < x.numel(); e++) {
    size_t g = static_cast<size_t>(group_of[static_cast<size_t>(e)]);
    double v = nn::to_acc<double>(xd[e]);
    sum[g] += v;
    sq[g] += v * v;
    cnt[g] += 1;
  }
  T* yd = y.data<T>();
  for (int64_t e = 0; e < x.numel(); e++) {
    size_t g = static_cast<size_t>(group_of[static_cast<size_t>(e)]);
    double mean = sum[g] / cnt[g];
    double var = std::max(sq[g] / cnt[g] - mean * mean, 0.0);
    yd[e] = nn::from_acc<T>((nn::to_acc<double>(xd[e]) - mean) / (std::sqrt(var) + 1e-9));
  }
}

}  // namespace

void MeanVarianceNorm::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  std::vector<bool> reduced(x.rank(), false);
  for (int64_t a : axes_) reduced[normalize_axis(a, x.rank(), name())] = true;
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  if (y.numel() == 0) return;  // (statistics over huge declared dims of an empty input: none)
  switch (x.dtype()) {
    case DatumType::F32:
      mvn<float>(x, reduced, y);
      break;
    case DatumType::F64:
      mvn<double>(x, reduced, y);
      break;
    case DatumType::F16:
      mvn<f16>(x, reduced, y);
      break;
    case DatumType::BF16:
      mvn<bf16>(x, reduced, y);
      break;
    default:
      fail("MeanVarianceNormalization: unsupported type {}", name_of(x.dtype()));
  }
}

}  // namespace kiln::ops
