#include "ops/nn/lrn.h"

#include <algorithm>
#include <cmath>

#include "base/error.h"
#include "ops/nn/nn_common.h"

namespace kiln::ops {

Attributes Lrn::attributes() const {
  return {{"size", std::to_string(size_)},
          {"alpha", fmt::format("{}", alpha_)},
          {"beta", fmt::format("{}", beta_)},
          {"bias", fmt::format("{}", bias_)}};
}

std::vector<Fact> Lrn::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(is_float(x.dt), "LRN: input type {} is not a float type", name_of(x.dt));
  KILN_ENSURE(x.rank() >= 2, "LRN: input rank {} must be at least 2", x.rank());
  KILN_ENSURE(size_ >= 1, "LRN: size {} must be positive", size_);
  return {Fact(x.dt, x.shape)};
}

Cost Lrn::cost(const FactRefs& inputs) const {
  Cost c;
  c.other = required(inputs, 0, name()).volume();
  return c;
}

namespace {

template <typename T>
void lrn(const Tensor& x, int64_t size, double alpha, double beta, double bias, Tensor& y) {
  int64_t n = x.dim(0), c = x.dim(1);
  int64_t plane = n * c > 0 ? x.numel() / (n * c) : 0;
  // The window around channel i spans [i - floor((size-1)/2), i + ceil((size-1)/2)].
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  const T* xd = x.data<T>();
  T* yd = y.data<T>();
  for (int64_t b = 0; b < n; b++) {
    for (int64_t ch = 0; ch < c; ch++) {
      int64_t lo = std::max<int64_t>(0, ch - before), hi = std::min<int64_t>(c - 1, ch + after);
      for (int64_t j = 0; j < plane; j++) {
        double sq = 0;
        for (int64_t k = lo; k <= hi; k++) {
          double v = nn::to_acc<double>(xd[(b * c + k) * plane + j]);
          sq += v * v;
        }
        int64_t o = (b * c + ch) * plane + j;
        double v = nn::to_acc<double>(xd[o]);
        yd[o] = nn::from_acc<T>(v / std::pow(bias + alpha / static_cast<double>(size) * sq, beta));
      }
    }
  }
}

}  // namespace

void Lrn::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  KILN_ENSURE(x.rank() >= 2, "LRN: input rank {} must be at least 2", x.rank());
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  switch (x.dtype()) {
    case DatumType::F32:
      lrn<float>(x, size_, alpha_, beta_, bias_, y);
      break;
    case DatumType::F64:
      lrn<double>(x, size_, alpha_, beta_, bias_, y);
      break;
    case DatumType::F16:
      lrn<f16>(x, size_, alpha_, beta_, bias_, y);
      break;
    case DatumType::BF16:
      lrn<bf16>(x, size_, alpha_, beta_, bias_, y);
      break;
    default:
      fail("LRN: unsupported type {}", name_of(x.dtype()));
  }
}

}  // namespace kiln::ops
