#include "ops/quant/qlinear_matmul.h"

#include "ops/quant/quant_util.h"

namespace kiln::ops {

std::vector<Fact> QLinearMatMul::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 8, 8);
  const Fact& a = required(inputs, 0, name());
  const Fact& b = required(inputs, 3, name());
  KILN_ENSURE(a.dt == DatumType::U8 || a.dt == DatumType::I8,
              "QLinearMatMul: a must be u8 or i8, got {}", name_of(a.dt));
  KILN_ENSURE(b.dt == DatumType::U8 || b.dt == DatumType::I8,
              "QLinearMatMul: b must be u8 or i8, got {}", name_of(b.dt));
  for (size_t i : {1, 4, 6})
    KILN_ENSURE(is_float(required(inputs, i, name()).dt),
                "QLinearMatMul: input {} (a scale) must be float", i);
  KILN_ENSURE(required(inputs, 2, name()).dt == a.dt,
              "QLinearMatMul: a_zero_point type differs from a");
  KILN_ENSURE(required(inputs, 5, name()).dt == b.dt,
              "QLinearMatMul: b_zero_point type differs from b");
  const Fact& yzp = required(inputs, 7, name());
  KILN_ENSURE(yzp.dt == DatumType::U8 || yzp.dt == DatumType::I8,
              "QLinearMatMul: y_zero_point must be u8 or i8, got {}", name_of(yzp.dt));
  return {Fact(yzp.dt, quant::matmul_output_dims(a.shape, b.shape, name()))};
}

void QLinearMatMul::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  for (size_t i = 0; i < 8; i++) required(inputs, i, name());
  std::vector<float> as = quant::to_f32(*inputs[1], name());
  std::vector<float> bs = quant::to_f32(*inputs[4], name());
  std::vector<float> ys = quant::to_f32(*inputs[6], name());
  std::vector<int32_t> yz = quant::to_i32(*inputs[7], name());
  KILN_ENSURE(ys.size() == 1 && yz.size() == 1,
              "QLinearMatMul: y_scale and y_zero_point must hold one value");
  quant::IntMatMul r = quant::int_matmul(*inputs[0], *inputs[3], quant::to_i32(*inputs[2], name()),
                                         quant::to_i32(*inputs[5], name()), name());
  KILN_ENSURE(as.size() == 1 || static_cast<int64_t>(as.size()) == r.m,
              "QLinearMatMul: a_scale must have 1 or {} values", r.m);
  KILN_ENSURE(bs.size() == 1 || static_cast<int64_t>(bs.size()) == r.n,
              "QLinearMatMul: b_scale must have 1 or {} values", r.n);
  Tensor& y = ctx.output(0, inputs[7]->dtype(), r.shape);
  const int64_t total = static_cast<int64_t>(r.acc.size());
  for (int64_t i = 0; i < total; i++) {
    int64_t row = (i / r.n) % r.m, col = i % r.n;
    double mult = static_cast<double>(as[as.size() == 1 ? 0 : static_cast<size_t>(row)]) *
                  bs[bs.size() == 1 ? 0 : static_cast<size_t>(col)] / ys[0];
    quant::store_saturated(y, i, std::nearbyint(r.acc[static_cast<size_t>(i)] * mult) + yz[0]);
  }
}

Cost QLinearMatMul::cost(const FactRefs& inputs) const {
  Cost c;
  c.fma = quant::matmul_fma(required(inputs, 0, name()).shape, required(inputs, 3, name()).shape,
                            name());
  c.fma_type = DatumType::I32;
  return c;
}

}  // namespace kiln::ops
