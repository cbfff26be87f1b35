#include "ops/quant/quantize_linear.h"

#include <type_traits>

#include "ops/quant/quant_util.h"

namespace kiln::ops {

Attributes QuantizeLinear::attributes() const {
  return {{"axis", std::to_string(axis_)}, {"output_dtype", std::string(name_of(output_dt_))}};
}

std::vector<Fact> QuantizeLinear::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 3);
  const Fact& x = required(inputs, 0, name());
  const Fact& scale = required(inputs, 1, name());
  KILN_ENSURE(is_float(x.dt) || x.dt == DatumType::I32,
              "QuantizeLinear: input must be float or i32, got {}", name_of(x.dt));
  KILN_ENSURE(is_float(scale.dt), "QuantizeLinear: scale must be float, got {}", name_of(scale.dt));
  quant::check_axis_param(x, scale, axis_, name(), "scale");
  DatumType dt = output_dt_;
  if (inputs.size() > 2 && inputs[2]) {
    dt = inputs[2]->dt;
    KILN_ENSURE(inputs[2]->shape.size() == scale.shape.size(),
                "QuantizeLinear: zero point and scale shapes differ");
    quant::check_axis_param(x, *inputs[2], axis_, name(), "zero point");
  }
  KILN_ENSURE(quant::is_quantized_type(dt), "QuantizeLinear: unsupported output type {}",
              name_of(dt));
  return {Fact(dt, x.shape)};
}

void QuantizeLinear::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  const Tensor& scale = required(inputs, 1, name());
  const Tensor* zp = inputs.size() > 2 ? inputs[2] : nullptr;
  DatumType dt = zp ? zp->dtype() : output_dt_;
  KILN_ENSURE(quant::is_quantized_type(dt), "QuantizeLinear: unsupported output type {}",
              name_of(dt));
  const int64_t n = x.numel();
  if (x.dtype() == DatumType::F32 && scale.dtype() == DatumType::F32 && scale.numel() == 1 &&
      (!zp || zp->numel() == 1) && (dt == DatumType::U8 || dt == DatumType::I8)) {
    // The common case (activations), with no temporaries (a steady-state run allocates
    // nothing), in a loop the compiler vectorizes: the same float division, clamped to the
    // output range before rounding (so the result saturates the same way), then rounded half
    // to even by adding and subtracting 1.5 * 2^23 (exact for |d| < 2^22, which the clamp
    // ensures; NaN is taken as the low end, as store_saturated does).
    const float* px = x.data<float>();
    const float s = scale.data<float>()[0];
    const int32_t z = !zp                            ? 0
                      : zp->dtype() == DatumType::U8 ? int32_t{zp->data<uint8_t>()[0]}
                                                     : int32_t{zp->data<int8_t>()[0]};
    Tensor& y = ctx.output(0, dt, x.shape());
    const float lo = static_cast<float>((dt == DatumType::U8 ? 0 : -128) - z);
    const float hi = static_cast<float>((dt == DatumType::U8 ? 255 : 127) - z);
    auto quantize = [&](auto* out) {
      using T = std::remove_pointer_t<decltype(out)>;
      for (int64_t i = 0; i < n; i++) {
        float d = px[i] / s;
        d = d > lo ? d : lo;  // NaN -> lo
        d = d < hi ? d : hi;
        const float r = (d + 12582912.0f) - 12582912.0f;
        out[i] = static_cast<T>(static_cast<int32_t>(r) + z);
      }
    };
    if (dt == DatumType::U8)
      quantize(y.data<uint8_t>());
    else
      quantize(y.data<int8_t>());
    return;
  }
  quant::AxisParam sp = quant::axis_param(x.shape(), scale.shape(), axis_, name(), "scale");
  std::vector<float> sv = quant::to_f32(scale, name());
  std::vector<int32_t> zv = zp ? quant::to_i32(*zp, name()) : std::vector<int32_t>{0};
  KILN_ENSURE(zv.size() == 1 || zv.size() == sv.size(),
              "QuantizeLinear: zero point has {} values, scale has {}", zv.size(), sv.size());
  Tensor& y = ctx.output(0, dt, x.shape());
  if (x.dtype() == DatumType::I32) {
    const int32_t* px = x.data<int32_t>();
    for (int64_t i = 0; i < n; i++) {
      size_t p = static_cast<size_t>(sp.index(i));
      double q = std::nearbyint(static_cast<double>(px[i]) / static_cast<double>(sv[p]));
      quant::store_saturated(y, i, q + zv[zv.size() == 1 ? 0 : p]);
    }
    return;
  }
  std::vector<float> xv = quant::to_f32(x, name());
  for (int64_t i = 0; i < n; i++) {
    size_t p = static_cast<size_t>(sp.index(i));
    // Divide in float like the reference does, so ties land the same way.
    float d = xv[static_cast<size_t>(i)] / sv[p];
    quant::store_saturated(y, i,
                           std::nearbyint(static_cast<double>(d)) + zv[zv.size() == 1 ? 0 : p]);
  }
}

Cost QuantizeLinear::cost(const FactRefs& inputs) const {
  Cost c;
  c.other = required(inputs, 0, name()).volume();
  return c;
}

}  // namespace kiln::ops
