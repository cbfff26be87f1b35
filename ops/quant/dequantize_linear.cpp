#include "ops/quant/dequantize_linear.h"

#include "ops/quant/quant_params.h"

namespace kiln::ops {

Attributes DequantizeLinear::attributes() const {
  Attributes a{{"axis", std::to_string(axis_)}};
  if (block_size_) a.push_back({"block_size", std::to_string(block_size_)});
  if (output_dt_) a.push_back({"output_dtype", std::string(name_of(*output_dt_))});
  return a;
}

std::vector<Fact> DequantizeLinear::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 3);
  const Fact& x = required(inputs, 0, name());
  const Fact& scale = required(inputs, 1, name());
  KILN_ENSURE(quant::is_quantized_type_21(x.dt) || x.dt == DatumType::I32,
              "DequantizeLinear: unsupported input type {}", name_of(x.dt));
  KILN_ENSURE(is_float(scale.dt) || scale.dt == DatumType::F8E8M0,
              "DequantizeLinear: scale must be float, got {}", name_of(scale.dt));
  quant::check_param(x, scale, axis_, block_size_, name(), "scale");
  if (inputs.size() > 2 && inputs[2]) {
    KILN_ENSURE(inputs[2]->dt == x.dt, "DequantizeLinear: zero point type {} differs from input {}",
                name_of(inputs[2]->dt), name_of(x.dt));
    quant::check_param(x, *inputs[2], axis_, block_size_, name(), "zero point");
  }
  DatumType out = output_dt_.value_or(scale.dt == DatumType::F8E8M0 ? DatumType::F32 : scale.dt);
  KILN_ENSURE(is_float(out), "DequantizeLinear: output_dtype {} is not a float type", name_of(out));
  return {Fact(out, x.shape)};
}

void DequantizeLinear::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  const Tensor& scale = required(inputs, 1, name());
  const Tensor* zp = inputs.size() > 2 ? inputs[2] : nullptr;
  quant::ParamMap sm =
      quant::param_map(x.shape(), scale.shape(), axis_, block_size_, name(), "scale");
  quant::ParamMap zm =
      zp ? quant::param_map(x.shape(), zp->shape(), axis_, block_size_, name(), "zero point")
         : quant::ParamMap{};
  DatumType out =
      output_dt_.value_or(scale.dtype() == DatumType::F8E8M0 ? DatumType::F32 : scale.dtype());
  Tensor& y = ctx.output(0, out, x.shape());
  const bool float_input = is_narrow_float(x.dtype());
  dispatch_numeric(out, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_integral_v<T>) {
      T* py = y.data<T>();
      for (int64_t i = 0; i < x.numel(); i++) {
        const float s = static_cast<float>(scale.value_as_double(sm.index(i)));
        float v;
        if (float_input) {
          v = static_cast<float>(x.value_as_double(i));
          if (zp) v -= static_cast<float>(zp->value_as_double(zm.index(i)));
        } else {
          int64_t centered = x.value_as_i64(i) - (zp ? zp->value_as_i64(zm.index(i)) : 0);
          v = static_cast<float>(centered);
        }
        py[i] = static_cast<T>(v * s);
      }
    }
  });
}

Cost DequantizeLinear::cost(const FactRefs& inputs) const {
  Cost c;
  c.other = required(inputs, 0, name()).volume();
  return c;
}

}  // namespace kiln::ops
