#include "ops/quant/conv_integer.h"

#include <algorithm>

namespace kiln::ops {

std::vector<Fact> ConvInteger::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 4);
  const Fact& x = required(inputs, 0, name());
  const Fact& w = required(inputs, 1, name());
  KILN_ENSURE(x.dt == DatumType::U8 || x.dt == DatumType::I8,
              "ConvInteger: x must be u8 or i8, got {}", name_of(x.dt));
  KILN_ENSURE(w.dt == DatumType::U8 || w.dt == DatumType::I8,
              "ConvInteger: w must be u8 or i8, got {}", name_of(w.dt));
  if (inputs.size() > 2 && inputs[2]) {
    KILN_ENSURE(inputs[2]->dt == x.dt, "ConvInteger: x_zero_point type differs from x");
    KILN_ENSURE(inputs[2]->rank() <= 1, "ConvInteger: x_zero_point must be a scalar");
  }
  if (inputs.size() > 3 && inputs[3]) {
    KILN_ENSURE(inputs[3]->dt == w.dt, "ConvInteger: w_zero_point type differs from w");
    KILN_ENSURE(inputs[3]->rank() <= 1, "ConvInteger: w_zero_point must be a scalar or 1-D");
  }
  return {Fact(DatumType::I32, quant::conv_output_dims(g_, x.shape, w.shape, name()))};
}

void ConvInteger::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  const Tensor& w = required(inputs, 1, name());
  int32_t xz = 0;
  if (inputs.size() > 2 && inputs[2]) {
    std::vector<int32_t> v = quant::to_i32(*inputs[2], name());
    KILN_ENSURE(v.size() == 1, "ConvInteger: x_zero_point must hold one value, got {}", v.size());
    xz = v[0];
  }
  std::vector<int32_t> wz =
      inputs.size() > 3 && inputs[3] ? quant::to_i32(*inputs[3], name()) : std::vector<int32_t>{0};
  quant::IntConv r = quant::int_conv(g_, x, xz, w, wz, name());
  Tensor& y = ctx.output(0, DatumType::I32, r.shape);
  std::copy(r.acc.begin(), r.acc.end(), y.data<int32_t>());
}

Cost ConvInteger::cost(const FactRefs& inputs) const {
  Cost c;
  c.fma = quant::conv_fma(g_, required(inputs, 0, name()).shape, required(inputs, 1, name()).shape,
                          name());
  c.fma_type = DatumType::I32;
  return c;
}

}  // namespace kiln::ops
