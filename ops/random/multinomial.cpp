#include "ops/random/multinomial.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "base/error.h"
#include "ops/random/random_tensor.h"

namespace kiln::ops {

Attributes Multinomial::attributes() const {
  Attributes a{{"sample_size", std::to_string(sample_size_)},
               {"dtype", std::string(name_of(dtype_))}};
  if (seed_) a.push_back({"seed", fmt::format("{}", *seed_)});
  return a;
}

std::vector<Fact> Multinomial::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(is_float(x.dt) && x.rank() == 2,
              "Multinomial: input must be 2-D float [batch, classes], got {} of rank {}",
              name_of(x.dt), x.rank());
  KILN_ENSURE(dtype_ == DatumType::I32 || dtype_ == DatumType::I64,
              "Multinomial: dtype must be int32 or int64, got {}", name_of(dtype_));
  KILN_ENSURE(sample_size_ > 0, "Multinomial: sample_size {} must be positive", sample_size_);
  return {Fact(dtype_, std::vector<Dim>{x.shape[0], sample_size_})};
}

void Multinomial::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  KILN_ENSURE(x.rank() == 2 && x.dim(1) > 0, "Multinomial: input must be [batch, classes > 0]");
  const int64_t batch = x.dim(0), classes = x.dim(1);
  Shape& shape = ctx.temp_shape(0);
  shape.assign({batch, sample_size_});
  Tensor& y = ctx.output(0, dtype_, shape);
  std::mt19937_64 rng(random_seed(seed_));
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  double* cdf = ctx.scratch<double>(static_cast<size_t>(classes));
  for (int64_t b = 0; b < batch; b++) {
    double top = -INFINITY;
    for (int64_t c = 0; c < classes; c++) top = std::max(top, x.value_as_double(b * classes + c));
    double total = 0;
    for (int64_t c = 0; c < classes; c++) {
      total += std::isinf(top) ? 1.0 : std::exp(x.value_as_double(b * classes + c) - top);
      cdf[c] = total;
    }
    for (int64_t s = 0; s < sample_size_; s++) {
      double u = uniform(rng) * total;
      int64_t k = std::upper_bound(cdf, cdf + classes, u) - cdf;
      k = std::min(k, classes - 1);
      if (dtype_ == DatumType::I32)
        y.data<int32_t>()[b * sample_size_ + s] = static_cast<int32_t>(k);
      else
        y.data<int64_t>()[b * sample_size_ + s] = k;
    }
  }
}

}  // namespace kiln::ops
