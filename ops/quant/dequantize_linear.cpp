#include "ops/quant/dequantize_linear.h"

#include "kernels/quant/qconvert.h"
#include "ops/quant/quant_params.h"

namespace kiln::ops {

namespace {
// The op's name for errors, made once: "DequantizeLinear" is past std::string's short-string
// size, and a temporary from name() would allocate in every steady-state run.
const std::string& op_name() {
  static const std::string name = "DequantizeLinear";
  return name;
}
}  // namespace

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
  const Tensor& x = required(inputs, 0, op_name());
  const Tensor& scale = required(inputs, 1, op_name());
  const Tensor* zp = inputs.size() > 2 ? inputs[2] : nullptr;
  if ((x.dtype() == DatumType::U8 || x.dtype() == DatumType::I8) &&
      scale.dtype() == DatumType::F32 && scale.numel() == 1 && (!zp || zp->numel() == 1) &&
      block_size_ == 0 && output_dt_.value_or(DatumType::F32) == DatumType::F32) {
    // The common case (activations): one scale and zero point, with no temporaries (a
    // steady-state run allocates nothing), the same float product as below, in the ISA's vector
    // kernel (kernels/quant/qconvert.h).
    const bool u8 = x.dtype() == DatumType::U8;
    const int32_t z = !zp  ? 0
                      : u8 ? int32_t{zp->data<uint8_t>()[0]}
                           : int32_t{zp->data<int8_t>()[0]};
    Tensor& y = ctx.output(0, DatumType::F32, x.shape());
    kernels::qconvert().dequantize(x.raw_data(), y.data<float>(), x.numel(),
                                   kernels::Q8{scale.data<float>()[0], z, !u8});
    return;
  }
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
