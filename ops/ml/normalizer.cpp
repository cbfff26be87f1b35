#include "ops/ml/normalizer.h"

#include <algorithm>
#include <cmath>

#include "base/error.h"

namespace kiln::ops::ml {

Attributes Normalizer::attributes() const {
  return {{"norm", kind_ == NormKind::Max ? "MAX" : kind_ == NormKind::L1 ? "L1" : "L2"}};
}

std::vector<Fact> Normalizer::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(is_numeric(x.dt), "Normalizer: input must be numeric, got {}", name_of(x.dt));
  Dim n;
  rows_of(x.shape, name(), &n);
  return {Fact(DatumType::F32, x.shape)};
}

void Normalizer::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  Rows r = rows_of(x.shape(), name());
  Tensor& y = ctx.output(0, DatumType::F32, x.shape());
  float* yd = y.data<float>();
  read_floats(x, yd);
  for (int64_t i = 0; i < r.n; i++) {
    float* row = yd + i * r.c;
    float d = 0;
    if (kind_ == NormKind::Max) {
      d = r.c ? *std::max_element(row, row + r.c) : 0.0f;
    } else {
      for (int64_t j = 0; j < r.c; j++)
        d += kind_ == NormKind::L1 ? std::abs(row[j]) : row[j] * row[j];
      if (kind_ == NormKind::L2) d = std::sqrt(d);
    }
    if (d == 0) continue;
    for (int64_t j = 0; j < r.c; j++) row[j] /= d;
  }
}

}  // namespace kiln::ops::ml
