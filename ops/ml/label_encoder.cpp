#include "ops/ml/label_encoder.h"

#include <cmath>

#include "base/error.h"

namespace kiln::ops::ml {

LabelEncoder::LabelEncoder(Tensor keys, Tensor values, Tensor default_value, std::string op_name)
    : keys_(std::move(keys)),
      values_(std::move(values)),
      default_(std::move(default_value)),
      op_name_(std::move(op_name)) {
  KILN_ENSURE(keys_.numel() == values_.numel(), "{}: {} keys for {} values", op_name_,
              keys_.numel(), values_.numel());
  KILN_ENSURE(default_.dtype() == values_.dtype() && default_.numel() >= 1,
              "{}: the default must be one value of the values' type", op_name_);
  for (int64_t i = 0; i < keys_.numel(); i++) {
    if (keys_.dtype() == DatumType::String) {
      string_index_[keys_.data<std::string>()[i]] = i;
    } else {
      double k = keys_.value_as_double(i);
      if (std::isnan(k))
        nan_index_ = i;
      else
        number_index_[k] = i;
    }
  }
}

Attributes LabelEncoder::attributes() const {
  return {{"keys", fmt::format("{} {}", keys_.numel(), name_of(keys_.dtype()))},
          {"values", std::string(name_of(values_.dtype()))}};
}

std::vector<Fact> LabelEncoder::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  bool strings = x.dt == DatumType::String, keys_strings = keys_.dtype() == DatumType::String;
  KILN_ENSURE(strings == keys_strings && (strings || is_numeric(x.dt)),
              "{}: input of type {} for keys of type {}", op_name_, name_of(x.dt),
              name_of(keys_.dtype()));
  return {Fact(values_.dtype(), x.shape)};
}

int64_t LabelEncoder::lookup(const Tensor& x, int64_t i) const {
  if (x.dtype() == DatumType::String) {
    auto it = string_index_.find(x.data<std::string>()[i]);
    return it == string_index_.end() ? -1 : it->second;
  }
  double v = x.value_as_double(i);
  if (std::isnan(v)) return nan_index_;
  auto it = number_index_.find(v);
  return it == number_index_.end() ? -1 : it->second;
}

void LabelEncoder::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  KILN_ENSURE((x.dtype() == DatumType::String) == (keys_.dtype() == DatumType::String),
              "{}: input of type {} for keys of type {}", op_name_, name_of(x.dtype()),
              name_of(keys_.dtype()));
  Tensor& y = ctx.output(0, values_.dtype(), x.shape());
  dispatch_any(values_.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* vals = values_.data<T>();
    const T dflt = default_.data<T>()[0];
    T* yd = y.data<T>();
    for (int64_t i = 0; i < x.numel(); i++) {
      int64_t k = lookup(x, i);
      yd[i] = k < 0 ? dflt : vals[k];
    }
  });
}

}  // namespace kiln::ops::ml
