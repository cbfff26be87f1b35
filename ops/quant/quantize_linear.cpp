#include "ops/quant/quantize_linear.h"

#include <cmath>
#include <type_traits>

#include "kernels/quant/qconvert.h"
#include "ops/quant/quant_params.h"

namespace kiln::ops {

Attributes QuantizeLinear::attributes() const {
  Attributes a{{"axis", std::to_string(axis_)}, {"output_dtype", std::string(name_of(output_dt_))}};
  if (o_.block_size) a.push_back({"block_size", std::to_string(o_.block_size)});
  if (!o_.saturate) a.push_back({"saturate", "0"});
  if (o_.precision) a.push_back({"precision", std::string(name_of(*o_.precision))});
  return a;
}

std::vector<Fact> QuantizeLinear::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 3);
  const Fact& x = required(inputs, 0, name());
  const Fact& scale = required(inputs, 1, name());
  KILN_ENSURE(is_float(x.dt) || x.dt == DatumType::I32,
              "QuantizeLinear: input must be float or i32, got {}", name_of(x.dt));
  KILN_ENSURE(is_float(scale.dt) || scale.dt == DatumType::I32 || scale.dt == DatumType::F8E8M0,
              "QuantizeLinear: scale must be float, i32 or float8e8m0, got {}", name_of(scale.dt));
  quant::check_param(x, scale, axis_, o_.block_size, name(), "scale");
  DatumType dt = output_dt_;
  if (inputs.size() > 2 && inputs[2]) {
    dt = inputs[2]->dt;
    KILN_ENSURE(inputs[2]->rank() == scale.rank(),
                "QuantizeLinear: zero point and scale shapes differ");
    quant::check_param(x, *inputs[2], axis_, o_.block_size, name(), "zero point");
  }
  KILN_ENSURE(quant::is_quantized_type_21(dt), "QuantizeLinear: unsupported output type {}",
              name_of(dt));
  return {Fact(dt, x.shape)};
}

namespace {

// x / scale rounded to `precision` when it is a 16-bit float.
float quotient(float x, float scale, DatumType precision) {
  float q = x / scale;
  if (precision == DatumType::F16) return static_cast<float>(f16(q));
  if (precision == DatumType::BF16) return static_cast<float>(bf16(q));
  return q;
}

}  // namespace

void QuantizeLinear::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  const Tensor& scale = required(inputs, 1, name());
  const Tensor* zp = inputs.size() > 2 ? inputs[2] : nullptr;
  const DatumType dt = zp ? zp->dtype() : output_dt_;
  KILN_ENSURE(quant::is_quantized_type_21(dt), "QuantizeLinear: unsupported output type {}",
              name_of(dt));
  const int64_t n = x.numel();
  if (x.dtype() == DatumType::F32 && scale.dtype() == DatumType::F32 && scale.numel() == 1 &&
      (!zp || zp->numel() == 1) && (dt == DatumType::U8 || dt == DatumType::I8) &&
      o_.block_size == 0 && o_.precision.value_or(DatumType::F32) == DatumType::F32) {
    // The common case (activations), with no temporaries (a steady-state run allocates
    // nothing): the ISA's vector kernel, the same float division, clamped to the output range
    // before rounding (so the result saturates the same way), rounded half to even; NaN is
    // taken as the low end, as store_saturated does (kernels/quant/qconvert.h).
    const int32_t z = !zp                            ? 0
                      : zp->dtype() == DatumType::U8 ? int32_t{zp->data<uint8_t>()[0]}
                                                     : int32_t{zp->data<int8_t>()[0]};
    Tensor& y = ctx.output(0, dt, x.shape());
    kernels::qconvert().quantize(x.data<float>(), y.raw_data(), n,
                                 kernels::Q8{scale.data<float>()[0], z, dt == DatumType::I8});
    return;
  }
  quant::ParamMap sm =
      quant::param_map(x.shape(), scale.shape(), axis_, o_.block_size, name(), "scale");
  quant::ParamMap zm =
      zp ? quant::param_map(x.shape(), zp->shape(), axis_, o_.block_size, name(), "zero point")
         : quant::ParamMap{};
  const DatumType precision = o_.precision.value_or(scale.dtype());
  Tensor& y = ctx.output(0, dt, x.shape());
  if (is_narrow_float(dt)) {
    dispatch_any(dt, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (is_minifloat_v<T>) {
        T* py = y.data<T>();
        for (int64_t i = 0; i < n; i++) {
          float q = quotient(static_cast<float>(x.value_as_double(i)),
                             static_cast<float>(scale.value_as_double(sm.index(i))), precision);
          if (zp) q += static_cast<float>(zp->value_as_double(zm.index(i)));
          py[i] = T::from_bits(float_to_minifloat(T::format, q, o_.saturate));
        }
      }
    });
    return;
  }
  const double lo = quant::quant_min(dt), hi = quant::quant_max(dt);
  dispatch_pod(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T> || is_narrow_int_v<T>) {
      T* py = y.data<T>();
      for (int64_t i = 0; i < n; i++) {
        double q;
        if (x.dtype() == DatumType::I32 && precision == DatumType::I32) {
          q = std::nearbyint(x.value_as_double(i) / scale.value_as_double(sm.index(i)));
        } else {
          q = std::nearbyint(quotient(static_cast<float>(x.value_as_double(i)),
                                      static_cast<float>(scale.value_as_double(sm.index(i))),
                                      precision));
        }
        if (zp) q += zp->value_as_double(zm.index(i));
        double v = std::isnan(q) ? lo : std::min(std::max(q, lo), hi);
        py[i] = T(static_cast<int64_t>(v));
      }
    }
  });
}

Cost QuantizeLinear::cost(const FactRefs& inputs) const {
  Cost c;
  c.other = required(inputs, 0, name()).volume();
  return c;
}

}  // namespace kiln::ops
