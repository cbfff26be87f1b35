#include "ops/shape/one_hot.h"

#include <cmath>

namespace kiln::ops {

std::vector<Fact> OneHot::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 3, 3);
  const Fact& indices = required(inputs, 0, name());
  const Fact& depth = required(inputs, 1, name());
  const Fact& values = required(inputs, 2, name());
  KILN_ENSURE(is_numeric(indices.dt) && is_numeric(depth.dt),
              "OneHot: indices and depth must be numeric");
  KILN_ENSURE(values.rank() == 1 && (values.shape[0] == Dim(2) || !values.shape[0].is_int()),
              "OneHot: values must have shape [2]");
  size_t axis = normalize_axis(axis_, indices.rank() + 1, name());
  Dim d = Dim::fresh();
  if (depth.value)
    d = static_cast<int64_t>(depth.value->value_as_double(0));
  else if (depth.dims_value && depth.dims_value->size() == 1)
    d = (*depth.dims_value)[0];
  std::vector<Dim> shape = indices.shape;
  shape.insert(shape.begin() + static_cast<long>(axis), d);
  return {Fact(values.dt, shape)};
}

void OneHot::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& indices = required(inputs, 0, name());
  const Tensor& depth_t = required(inputs, 1, name());
  const Tensor& values = required(inputs, 2, name());
  KILN_ENSURE(depth_t.numel() == 1, "OneHot: depth must be a scalar");
  KILN_ENSURE(values.numel() == 2, "OneHot: values must have 2 elements");
  int64_t depth = static_cast<int64_t>(depth_t.value_as_double(0));
  KILN_ENSURE(depth >= 1, "OneHot: depth must be positive, got {}", depth);
  size_t axis = normalize_axis(axis_, indices.rank() + 1, name());
  Shape shape = indices.shape();
  shape.insert(shape.begin() + static_cast<long>(axis), depth);
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; d++) outer *= indices.dim(d);
  for (size_t d = axis; d < indices.rank(); d++) inner *= indices.dim(d);
  Tensor& out = ctx.output(0, values.dtype(), shape);
  dispatch_any(values.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* v = values.data<T>();
    T* dst = out.data<T>();
    for (int64_t o = 0; o < outer; o++)
      for (int64_t i = 0; i < inner; i++) {
        // Float indices are truncated toward zero, as the spec's reference does.
        int64_t idx = static_cast<int64_t>(std::trunc(indices.value_as_double(o * inner + i)));
        if (idx < 0) idx += depth;
        for (int64_t k = 0; k < depth; k++) dst[(o * depth + k) * inner + i] = v[k == idx ? 1 : 0];
      }
  });
}

}  // namespace kiln::ops
