#include "ops/quant/qrequant.h"

#include "fmt/format.h"
#include "kernels/quant/qconvert.h"
#include "ops/quant/quant_util.h"

namespace kiln::ops {

using quant::q8;

QRequant::QRequant(float x_scale, int32_t x_zp, bool x_signed, float y_scale, int32_t y_zp,
                   bool y_signed)
    : x_scale_(x_scale),
      y_scale_(y_scale),
      x_zp_(x_zp),
      y_zp_(y_zp),
      x_signed_(x_signed),
      y_signed_(y_signed) {}

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
  // In the ISA's vector kernel: the chain's float operations, bitwise (kernels/quant/qconvert.h).
  kernels::qconvert().requantize(x.raw_data(), y.raw_data(), x.numel(),
                                 kernels::Q8{x_scale_, x_zp_, x_signed_},
                                 kernels::Q8{y_scale_, y_zp_, y_signed_});
}

Cost QRequant::cost(const FactRefs& inputs) const {
  Cost c;
  c.other = required(inputs, 0, name()).volume();
  return c;
}

}  // namespace kiln::ops
