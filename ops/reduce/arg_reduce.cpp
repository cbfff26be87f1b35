#include "ops/reduce/arg_reduce.h"

#include "base/error.h"

namespace kiln::ops {

Attributes ArgReduce::attributes() const {
  return {{"axis", std::to_string(axis_)},
          {"keepdims", keepdims_ ? "1" : "0"},
          {"select_last_index", last_ ? "1" : "0"}};
}

std::vector<Fact> ArgReduce::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& data = required(inputs, 0, name());
  KILN_ENSURE(is_numeric(data.dt), "{}: unsupported input type {}", name(), name_of(data.dt));
  size_t axis = normalize_axis(axis_, data.rank(), name());
  std::vector<Dim> shape;
  for (size_t i = 0; i < data.rank(); i++) {
    if (i != axis)
      shape.push_back(data.shape[i]);
    else if (keepdims_)
      shape.emplace_back(1);
  }
  return {Fact(DatumType::I64, std::move(shape))};
}

void ArgReduce::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& data = required(inputs, 0, name());
  size_t axis = normalize_axis(axis_, data.rank(), name());
  Shape shape;
  for (size_t i = 0; i < data.rank(); i++) {
    if (i != axis)
      shape.push_back(data.dim(i));
    else if (keepdims_)
      shape.push_back(1);
  }
  Tensor& out = ctx.output(0, DatumType::I64, shape);
  // Nothing to compute (and the products of huge declared dims around an empty one need not fit).
  if (out.numel() == 0) return;
  int64_t outer = 1, inner = 1, n = data.dim(axis);
  for (size_t i = 0; i < axis; i++) outer *= data.dim(i);
  for (size_t i = axis + 1; i < data.rank(); i++) inner *= data.dim(i);
  KILN_ENSURE(n > 0, "{}: cannot reduce an empty axis", name());
  int64_t* y = out.data<int64_t>();
  dispatch_numeric(data.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = data.data<T>();
    for (int64_t o = 0; o < outer; o++) {
      for (int64_t i = 0; i < inner; i++) {
        const T* p = x + o * n * inner + i;
        int64_t best = 0;
        for (int64_t k = 1; k < n; k++) {
          auto v = p[k * inner], b = p[best * inner];
          bool better = is_max_ ? (last_ ? v >= b : v > b) : (last_ ? v <= b : v < b);
          if (better) best = k;
        }
        y[o * inner + i] = best;
      }
    }
  });
}

}  // namespace kiln::ops
