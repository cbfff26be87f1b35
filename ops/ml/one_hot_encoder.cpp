#include "ops/ml/one_hot_encoder.h"

#include <cstring>

#include "base/error.h"

namespace kiln::ops::ml {

OneHotEncoder::OneHotEncoder(std::vector<int64_t> ints, std::vector<std::string> strings,
                             bool zeros)
    : use_strings_(!strings.empty()), zeros_(zeros) {
  KILN_ENSURE(ints.empty() != strings.empty(),
              "OneHotEncoder: exactly one of cats_int64s and cats_strings must be given");
  for (size_t i = 0; i < ints.size(); i++) ints_.emplace(ints[i], static_cast<int64_t>(i));
  for (size_t i = 0; i < strings.size(); i++) strings_.emplace(strings[i], static_cast<int64_t>(i));
  count_ = static_cast<int64_t>(use_strings_ ? strings.size() : ints.size());
}

std::vector<Fact> OneHotEncoder::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE((x.dt == DatumType::String) == use_strings_ && (use_strings_ || is_numeric(x.dt)),
              "OneHotEncoder: input of type {} for {} categories", name_of(x.dt),
              use_strings_ ? "string" : "integer");
  std::vector<Dim> shape = x.shape;
  shape.push_back(count_);
  return {Fact(DatumType::F32, shape)};
}

void OneHotEncoder::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  KILN_ENSURE((x.dtype() == DatumType::String) == use_strings_, "OneHotEncoder: input of type {}",
              name_of(x.dtype()));
  Shape& shape = ctx.temp_shape(0);
  shape.assign(x.shape().begin(), x.shape().end());
  shape.push_back(count_);
  Tensor& y = ctx.output(0, DatumType::F32, shape);
  float* yd = y.data<float>();
  if (y.numel()) std::memset(yd, 0, y.nbytes());
  for (int64_t i = 0; i < x.numel(); i++) {
    int64_t k = -1;
    if (use_strings_) {
      auto it = strings_.find(x.data<std::string>()[i]);
      if (it != strings_.end()) k = it->second;
    } else {
      auto it = ints_.find(static_cast<int64_t>(x.value_as_double(i)));
      if (it != ints_.end()) k = it->second;
    }
    KILN_ENSURE(k >= 0 || zeros_, "OneHotEncoder: element {} is not a known category (zeros=0)", i);
    if (k >= 0) yd[i * count_ + k] = 1.0f;
  }
}

}  // namespace kiln::ops::ml
