#include "ops/quant/matmul_integer.h"

#include <algorithm>

#include "ops/quant/quant_util.h"

namespace kiln::ops {

namespace {

bool is_8bit(DatumType dt) {
  return dt == DatumType::U8 || dt == DatumType::I8;
}

}  // namespace

std::vector<Fact> MatMulInteger::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 4);
  const Fact& a = required(inputs, 0, name());
  const Fact& b = required(inputs, 1, name());
  KILN_ENSURE(is_8bit(a.dt) && is_8bit(b.dt),
              "MatMulInteger: A and B must be u8 or i8, got {} and {}", name_of(a.dt),
              name_of(b.dt));
  for (size_t i = 2; i < inputs.size(); i++) {
    if (!inputs[i]) continue;
    KILN_ENSURE(inputs[i]->dt == (i == 2 ? a.dt : b.dt),
                "MatMulInteger: zero point {} type {} differs from its operand", i,
                name_of(inputs[i]->dt));
    KILN_ENSURE(inputs[i]->rank() <= 1, "MatMulInteger: zero point {} must be a scalar or 1-D", i);
  }
  return {Fact(DatumType::I32, quant::matmul_output_dims(a.shape, b.shape, name()))};
}

void MatMulInteger::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& a = required(inputs, 0, name());
  const Tensor& b = required(inputs, 1, name());
  auto zp = [&](size_t i) {
    return inputs.size() > i && inputs[i] ? quant::to_i32(*inputs[i], name())
                                          : std::vector<int32_t>{0};
  };
  quant::IntMatMul r = quant::int_matmul(a, b, zp(2), zp(3), name());
  Tensor& y = ctx.output(0, DatumType::I32, r.shape);
  std::copy(r.acc.begin(), r.acc.end(), y.data<int32_t>());
}

Cost MatMulInteger::cost(const FactRefs& inputs) const {
  Cost c;
  c.fma = quant::matmul_fma(required(inputs, 0, name()).shape, required(inputs, 1, name()).shape,
                            name());
  c.fma_type = DatumType::I32;
  return c;
}

}  // namespace kiln::ops
