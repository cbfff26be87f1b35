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

// Integer x, f32 scale and output, per tensor or per axis: the general loop's arithmetic
// (float(x - zp) * scale) without a type dispatch per element. Constant weights behind a
// DequantizeLinear are evaluated whenever the graph's facts are analysed, so this is load time
// (mobilenet_v2_int8_qdq loaded in 3.3 s through the general loop, 0.4 s through this one).
template <typename T>
void dequantize_per_axis(const Tensor& x, const Tensor& scale, const Tensor* zp,
                         const quant::ParamMap& sm, float* y) {
  const T* px = x.data<T>();
  const float* ps = scale.data<float>();
  const T* pz = zp ? zp->data<T>() : nullptr;
  const int64_t n = x.numel();
  const bool per_axis = sm.kind == quant::ParamMap::Kind::Axis;
  const int64_t inner = per_axis ? sm.inner : n, dim = per_axis ? sm.axis_dim : 1;
  if (n == 0) return;
  for (int64_t base = 0; base < n; base += inner * dim) {
    if (inner == 1) {  // the axis is the last one (MatMul weights [K, N], axis 1)
      for (int64_t a = 0; a < dim; a++)
        y[base + a] =
            static_cast<float>(static_cast<int64_t>(px[base + a]) - (pz ? pz[a] : 0)) * ps[a];
      continue;
    }
    for (int64_t a = 0; a < dim; a++) {
      const float sa = ps[a];
      const int64_t z = pz ? static_cast<int64_t>(pz[a]) : 0;
      const int64_t start = base + a * inner;
      for (int64_t i = start; i < start + inner; i++)
        y[i] = static_cast<float>(static_cast<int64_t>(px[i]) - z) * sa;
    }
  }
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
  const bool axis_params = sm.kind != quant::ParamMap::Kind::Blocked &&
                           (!zp || (zm.kind == sm.kind && zp->numel() == scale.numel()));
  if (out == DatumType::F32 && scale.dtype() == DatumType::F32 && axis_params) {
    switch (x.dtype()) {
      case DatumType::U8:
        return dequantize_per_axis<uint8_t>(x, scale, zp, sm, y.data<float>());
      case DatumType::I8:
        return dequantize_per_axis<int8_t>(x, scale, zp, sm, y.data<float>());
      case DatumType::U16:
        return dequantize_per_axis<uint16_t>(x, scale, zp, sm, y.data<float>());
      case DatumType::I16:
        return dequantize_per_axis<int16_t>(x, scale, zp, sm, y.data<float>());
      case DatumType::I32:
        return dequantize_per_axis<int32_t>(x, scale, zp, sm, y.data<float>());
      default:
        break;
    }
  }
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
