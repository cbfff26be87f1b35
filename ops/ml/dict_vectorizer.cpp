#include "ops/ml/dict_vectorizer.h"

#include <fmt/format.h>

#include "base/error.h"
#include "core/map_value.h"

namespace kiln::ops::ml {

DictVectorizer::DictVectorizer(Labels vocabulary) : vocab_(std::move(vocabulary)) {
  KILN_ENSURE(vocab_.strings.empty() != vocab_.ints.empty(),
              "DictVectorizer: exactly one of int64_vocabulary and string_vocabulary must be "
              "given (and not empty)");
}

Attributes DictVectorizer::attributes() const {
  return {{"vocabulary", fmt::format("{} {}", vocab_.size(), name_of(vocab_.dtype()))}};
}

std::vector<Fact> DictVectorizer::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(x.dt == DatumType::Map && x.element, "DictVectorizer: input must be a map, got {}",
              x.to_string());
  KILN_ENSURE(x.key_dt == vocab_.dtype(), "DictVectorizer: {} input for a {} vocabulary",
              x.to_string(), name_of(vocab_.dtype()));
  return {Fact(x.element->dt, std::vector<Dim>{Dim(1), Dim(static_cast<int64_t>(vocab_.size()))})};
}

void DictVectorizer::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const MapValue& m = map_of(required(inputs, 0, name()), name());
  KILN_ENSURE(m.key_dt == vocab_.dtype(), "DictVectorizer: {} input for a {} vocabulary",
              map_type_name(m.key_dt, m.value_dt), name_of(vocab_.dtype()));
  auto v = static_cast<int64_t>(vocab_.size());
  Tensor& y = ctx.output(0, m.value_dt, Shape{1, v});
  dispatch_any(m.value_dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* yd = y.data<T>();
    const T* values = m.values.data<T>();
    for (int64_t i = 0; i < v; i++) {
      auto k = static_cast<size_t>(i);
      int64_t at =
          vocab_.use_strings() ? map_find(m, vocab_.strings[k]) : map_find(m, vocab_.ints[k]);
      yd[i] = at >= 0 ? values[at] : T();
    }
  });
}

Cost DictVectorizer::cost(const FactRefs&) const {
  Cost c;
  c.other = Dim(static_cast<int64_t>(vocab_.size()));
  return c;
}

}  // namespace kiln::ops::ml
