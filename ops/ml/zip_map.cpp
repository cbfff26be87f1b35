#include "ops/ml/zip_map.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/error.h"
#include "core/map_value.h"
#include "core/sequence.h"

namespace kiln::ops::ml {

ZipMap::ZipMap(Labels labels) : labels_(std::move(labels)) {
  KILN_ENSURE(labels_.strings.empty() != labels_.ints.empty(),
              "ZipMap: exactly one of classlabels_strings and classlabels_int64s must be given");
  auto n = static_cast<int64_t>(labels_.size());
  keys_ = Tensor(labels_.dtype(), Shape{n});
  for (int64_t i = 0; i < n; i++) labels_.write(keys_, i, static_cast<size_t>(i));
  make_map(keys_, Tensor(DatumType::F32, Shape{n}));  // rejects duplicate labels now
}

Attributes ZipMap::attributes() const {
  return {{"classlabels", fmt::format("{} {}", labels_.size(), name_of(labels_.dtype()))}};
}

std::vector<Fact> ZipMap::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(x.dt == DatumType::F32, "ZipMap: input must be f32, got {}", name_of(x.dt));
  Dim n;
  Rows r = rows_of(x.shape, name(), &n);
  KILN_ENSURE(r.c < 0 || r.c == static_cast<int64_t>(labels_.size()),
              "ZipMap: {} columns for {} class labels", r.c, labels_.size());
  return {sequence_fact(map_fact(labels_.dtype(), DatumType::F32))};
}

void ZipMap::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  Rows r = rows_of(x.shape(), name());
  KILN_ENSURE(r.c == static_cast<int64_t>(labels_.size()), "ZipMap: {} columns for {} class labels",
              r.c, labels_.size());
  std::vector<Tensor> maps;
  maps.reserve(static_cast<size_t>(r.n));
  const float* xd = x.data<float>();
  for (int64_t i = 0; i < r.n; i++) {
    Tensor values(DatumType::F32, Shape{r.c});
    std::copy(xd + i * r.c, xd + (i + 1) * r.c, values.data<float>());
    maps.push_back(make_map(keys_, std::move(values)));
  }
  ctx.set_output(0, make_sequence(DatumType::Map, std::move(maps)));
}

Cost ZipMap::cost(const FactRefs& inputs) const {
  Cost c;
  c.other = required(inputs, 0, name()).volume();
  return c;
}

}  // namespace kiln::ops::ml
