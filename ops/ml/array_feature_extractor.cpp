#include "ops/ml/array_feature_extractor.h"

#include "base/error.h"

namespace kiln::ops::ml {

std::vector<Fact> ArrayFeatureExtractor::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 2);
  const Fact& x = required(inputs, 0, name());
  const Fact& idx = required(inputs, 1, name());
  KILN_ENSURE(x.rank() >= 1, "ArrayFeatureExtractor: input must have rank >= 1");
  KILN_ENSURE(is_integer(idx.dt), "ArrayFeatureExtractor: indices must be integers");
  std::vector<Dim> shape = x.rank() == 1 ? std::vector<Dim>{1} : x.shape;
  if (x.rank() == 1)
    shape.push_back(idx.volume());
  else
    shape.back() = idx.volume();
  return {Fact(x.dt, shape)};
}

void ArrayFeatureExtractor::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  const Tensor& idx = required(inputs, 1, name());
  KILN_ENSURE(x.rank() >= 1 && !is_container(x.dtype()),
              "ArrayFeatureExtractor: input must be a tensor of rank >= 1");
  const int64_t last = x.shape().back();
  const int64_t k = idx.numel();
  for (int64_t j = 0; j < k; j++) {
    int64_t v = idx.value_as_i64(j);
    KILN_ENSURE(v >= 0 && v < last, "ArrayFeatureExtractor: index {} outside [0, {})", v, last);
  }
  Shape& shape = ctx.temp_shape(0);
  if (x.rank() == 1) {
    shape.assign({1, k});
  } else {
    shape.assign(x.shape().begin(), x.shape().end());
    shape.back() = k;
  }
  Tensor& y = ctx.output(0, x.dtype(), shape);
  const int64_t rows = last ? x.numel() / last : 0;
  dispatch_any(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xd = x.data<T>();
    T* yd = y.data<T>();
    for (int64_t r = 0; r < rows; r++)
      for (int64_t j = 0; j < k; j++) yd[r * k + j] = xd[r * last + idx.value_as_i64(j)];
  });
}

}  // namespace kiln::ops::ml
