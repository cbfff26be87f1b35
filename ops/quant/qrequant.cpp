#include "ops/quant/qrequant.h"

#include "fmt/format.h"
#include "ops/quant/quant_util.h"

namespace kiln::ops {

using quant::q8;

int32_t requantize_one(int32_t v, float x_scale, int32_t x_zp, float y_scale, int32_t y_zp,
                       bool y_signed) {
  const float f = static_cast<float>(v - x_zp) * x_scale;
  const float lo = static_cast<float>((y_signed ? -128 : 0) - y_zp);
  const float hi = static_cast<float>((y_signed ? 127 : 255) - y_zp);
  float d = f / y_scale;
  d = d > lo ? d : lo;  // NaN -> lo, as QuantizeLinear
  d = d < hi ? d : hi;
  const float r = (d + 12582912.0f) - 12582912.0f;
  return static_cast<int32_t>(r) + y_zp;
}

QRequant::QRequant(float x_scale, int32_t x_zp, bool x_signed, float y_scale, int32_t y_zp,
                   bool y_signed)
    : x_scale_(x_scale),
      y_scale_(y_scale),
      x_zp_(x_zp),
      y_zp_(y_zp),
      x_signed_(x_signed),
      y_signed_(y_signed) {
  for (int b = 0; b < 256; b++) {
    const int32_t v = x_signed ? static_cast<int8_t>(b) : b;
    table_[static_cast<size_t>(b)] =
        static_cast<uint8_t>(requantize_one(v, x_scale, x_zp, y_scale, y_zp, y_signed));
  }
}

Attributes QRequant::attributes() const {
  return {{"x", fmt::format("{}*({}-{})", x_scale_, name_of(q8(x_signed_)), x_zp_)},
          {"y", fmt::format("{}*({}-{})", y_scale_, name_of(q8(y_signed_)), y_zp_)}};
}

std::vector<Fact> QRequant::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(x.dt == q8(x_signed_), "QRequant: input must be {}, got {}", name_of(q8(x_signed_)),
              name_of(x.dt));
  return {Fact(q8(y_signed_), x.shape)};
}

void QRequant::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  KILN_ENSURE(x.dtype() == q8(x_signed_), "QRequant: input must be {}, got {}",
              name_of(q8(x_signed_)), name_of(x.dtype()));
  Tensor& y = ctx.output(0, q8(y_signed_), x.shape());
  const auto* px = static_cast<const uint8_t*>(x.raw_data());
  auto* py = static_cast<uint8_t*>(y.raw_data());
  const int64_t n = x.numel();
  for (int64_t i = 0; i < n; i++) py[i] = table_[px[i]];
}

Cost QRequant::cost(const FactRefs& inputs) const {
  Cost c;
  c.other = required(inputs, 0, name()).volume();
  return c;
}

}  // namespace kiln::ops
