#include "ops/quant/qlinear_conv.h"

namespace kiln::ops {

std::vector<Fact> QLinearConv::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 8, 9);
  const Fact& x = required(inputs, 0, name());
  const Fact& w = required(inputs, 3, name());
  KILN_ENSURE(x.dt == DatumType::U8 || x.dt == DatumType::I8,
              "QLinearConv: x must be u8 or i8, got {}", name_of(x.dt));
  KILN_ENSURE(w.dt == DatumType::U8 || w.dt == DatumType::I8,
              "QLinearConv: w must be u8 or i8, got {}", name_of(w.dt));
  for (size_t i : {1, 4, 6})
    KILN_ENSURE(is_float(required(inputs, i, name()).dt),
                "QLinearConv: input {} (a scale) must be float", i);
  KILN_ENSURE(required(inputs, 2, name()).dt == x.dt,
              "QLinearConv: x_zero_point type differs from x");
  KILN_ENSURE(required(inputs, 5, name()).dt == w.dt,
              "QLinearConv: w_zero_point type differs from w");
  const Fact& yzp = required(inputs, 7, name());
  KILN_ENSURE(yzp.dt == DatumType::U8 || yzp.dt == DatumType::I8,
              "QLinearConv: y_zero_point must be u8 or i8, got {}", name_of(yzp.dt));
  if (inputs.size() > 8 && inputs[8]) {
    KILN_ENSURE(inputs[8]->dt == DatumType::I32 && inputs[8]->rank() == 1,
                "QLinearConv: B must be a 1-D i32 tensor");
  }
  return {Fact(yzp.dt, quant::conv_output_dims(g_, x.shape, w.shape, name()))};
}

void QLinearConv::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  for (size_t i = 0; i < 8; i++) required(inputs, i, name());
  std::vector<float> xs = quant::to_f32(*inputs[1], name());
  std::vector<int32_t> xz = quant::to_i32(*inputs[2], name());
  std::vector<float> ws = quant::to_f32(*inputs[4], name());
  std::vector<int32_t> wz = quant::to_i32(*inputs[5], name());
  std::vector<float> ys = quant::to_f32(*inputs[6], name());
  std::vector<int32_t> yz = quant::to_i32(*inputs[7], name());
  KILN_ENSURE(xs.size() == 1 && xz.size() == 1 && ys.size() == 1 && yz.size() == 1,
              "QLinearConv: x and y scales and zero points must hold one value");
  quant::IntConv r = quant::int_conv(g_, *inputs[0], xz[0], *inputs[3], wz, name());
  const int64_t m = r.shape[1];
  KILN_ENSURE(ws.size() == 1 || static_cast<int64_t>(ws.size()) == m,
              "QLinearConv: w_scale must have 1 or {} values, got {}", m, ws.size());
  std::vector<int32_t> bias;
  if (inputs.size() > 8 && inputs[8]) {
    bias = quant::to_i32(*inputs[8], name());
    KILN_ENSURE(static_cast<int64_t>(bias.size()) == m,
                "QLinearConv: B must have {} values, got {}", m, bias.size());
  }
  Tensor& y = ctx.output(0, inputs[7]->dtype(), r.shape);
  const int64_t spatial = shape_numel(Shape(r.shape.begin() + 2, r.shape.end()));
  const int64_t total = static_cast<int64_t>(r.acc.size());
  for (int64_t i = 0; i < total; i++) {
    size_t c = static_cast<size_t>((i / spatial) % m);
    int64_t acc = r.acc[static_cast<size_t>(i)] + (bias.empty() ? 0 : bias[c]);
    double mult = static_cast<double>(xs[0]) * ws[ws.size() == 1 ? 0 : c] / ys[0];
    quant::store_saturated(y, i, std::nearbyint(static_cast<double>(acc) * mult) + yz[0]);
  }
}

Cost QLinearConv::cost(const FactRefs& inputs) const {
  Cost c;
  c.fma = quant::conv_fma(g_, required(inputs, 0, name()).shape, required(inputs, 3, name()).shape,
                          name());
  c.fma_type = DatumType::I32;
  return c;
}

}  // namespace kiln::ops
