#include "ops/text/string_concat.h"

#include "base/error.h"
#include "core/broadcast.h"

namespace kiln::ops {

std::vector<Fact> StringConcat::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 2);
  const Fact& a = required(inputs, 0, name());
  const Fact& b = required(inputs, 1, name());
  KILN_ENSURE(a.dt == DatumType::String && b.dt == DatumType::String,
              "StringConcat: inputs must be strings, got {} and {}", name_of(a.dt), name_of(b.dt));
  return {Fact(DatumType::String, broadcast_dims({a.shape, b.shape}))};
}

void StringConcat::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& a = required(inputs, 0, name());
  const Tensor& b = required(inputs, 1, name());
  KILN_ENSURE(a.dtype() == DatumType::String && b.dtype() == DatumType::String,
              "StringConcat: inputs must be strings");
  Shape& shape = ctx.temp_shape(0);
  broadcast_shapes_into(a.shape(), b.shape(), shape);
  Tensor& out = ctx.output(0, DatumType::String, shape);
  const std::string* pa = a.data<std::string>();
  const std::string* pb = b.data<std::string>();
  std::string* po = out.data<std::string>();
  std::array<std::vector<int64_t>, 2> strides{broadcast_strides(a.shape(), shape),
                                              broadcast_strides(b.shape(), shape)};
  for_each_broadcast<2>(shape, strides, [&](int64_t i, const std::array<int64_t, 2>& o) {
    po[i].assign(pa[o[0]]);
    po[i].append(pb[o[1]]);
  });
}

}  // namespace kiln::ops
