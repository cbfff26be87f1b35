#include "ops/quant/dynamic_quantize_linear.h"

#include <algorithm>

#include "ops/quant/quant_util.h"

namespace kiln::ops {

std::vector<Fact> DynamicQuantizeLinear::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(x.dt == DatumType::F32, "DynamicQuantizeLinear: input must be f32, got {}",
              name_of(x.dt));
  return {Fact(DatumType::U8, x.shape), Fact(DatumType::F32, std::vector<Dim>{}),
          Fact(DatumType::U8, std::vector<Dim>{})};
}

void DynamicQuantizeLinear::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  KILN_ENSURE(x.dtype() == DatumType::F32, "DynamicQuantizeLinear: input must be f32, got {}",
              name_of(x.dtype()));
  const float* px = x.data<float>();
  // The range always includes 0 so that 0 is exactly representable.
  float lo = 0.f, hi = 0.f;
  for (int64_t i = 0; i < x.numel(); i++) {
    lo = std::min(lo, px[i]);
    hi = std::max(hi, px[i]);
  }
  float scale = (hi - lo) / 255.f;
  uint8_t zp = 0;
  if (scale > 0.f) zp = quant::saturate_round<uint8_t>(static_cast<double>((0.f - lo) / scale));
  Tensor& y = ctx.output(0, DatumType::U8, x.shape());
  uint8_t* py = y.data<uint8_t>();
  for (int64_t i = 0; i < x.numel(); i++) {
    if (scale > 0.f) {
      float d = px[i] / scale;
      py[i] = quant::saturate_round<uint8_t>(std::nearbyint(static_cast<double>(d)) + zp);
    } else {
      py[i] = 0;  // all zeros (or NaN range): everything quantizes to the zero point 0
    }
  }
  ctx.output(1, DatumType::F32, {}).data<float>()[0] = scale;
  ctx.output(2, DatumType::U8, {}).data<uint8_t>()[0] = zp;
}

Cost DynamicQuantizeLinear::cost(const FactRefs& inputs) const {
  Cost c;
  c.other = required(inputs, 0, name()).volume();
  return c;
}

}  // namespace kiln::ops
