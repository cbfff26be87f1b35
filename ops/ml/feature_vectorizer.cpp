#include "ops/ml/feature_vectorizer.h"

#include "base/error.h"

namespace kiln::ops::ml {

std::vector<Fact> FeatureVectorizer::output_facts(const FactRefs& inputs) const {
  KILN_ENSURE(!inputs.empty() && inputs.size() == dims_.size(),
              "FeatureVectorizer: {} inputs for {} inputdimensions", inputs.size(), dims_.size());
  int64_t total = 0;
  for (int64_t d : dims_) total += d;
  const Fact& first = required(inputs, 0, name());
  Dim n = first.rank() >= 2 ? first.shape[0] : Dim(1);
  for (size_t i = 0; i < inputs.size(); i++)
    KILN_ENSURE(is_numeric(required(inputs, i, name()).dt),
                "FeatureVectorizer: input {} is not numeric", i);
  return {Fact(DatumType::F32, std::vector<Dim>{n, total})};
}

void FeatureVectorizer::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  KILN_ENSURE(inputs.size() == dims_.size(), "FeatureVectorizer: {} inputs for {} inputdimensions",
              inputs.size(), dims_.size());
  int64_t total = 0;
  for (int64_t d : dims_) total += d;
  const Tensor& first = required(inputs, 0, name());
  const int64_t n = first.rank() >= 2 ? first.dim(0) : 1;
  Shape& shape = ctx.temp_shape(0);
  shape.assign({n, total});
  Tensor& y = ctx.output(0, DatumType::F32, shape);
  float* yd = y.data<float>();
  int64_t offset = 0;
  for (size_t i = 0; i < inputs.size(); i++) {
    const Tensor& t = required(inputs, i, name());
    const int64_t rows = t.rank() >= 2 ? t.dim(0) : 1;
    KILN_ENSURE(rows == n, "FeatureVectorizer: input {} has {} rows, input 0 has {}", i, rows, n);
    const int64_t cols = rows ? t.numel() / rows : 0;
    for (int64_t r = 0; r < n; r++)
      for (int64_t c = 0; c < dims_[i]; c++)
        yd[r * total + offset + c] =
            c < cols ? static_cast<float>(t.value_as_double(r * cols + c)) : 0.0f;
    offset += dims_[i];
  }
}

}  // namespace kiln::ops::ml
