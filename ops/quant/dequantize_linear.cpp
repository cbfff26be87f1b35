#include "ops/quant/dequantize_linear.h"

#include "ops/quant/quant_util.h"

namespace kiln::ops {

namespace {
// The op's name for errors, made once: "DequantizeLinear" is past std::string's short-string
// size, and a temporary from name() would allocate in every steady-state run.
const std::string& op_name() {
  static const std::string name = "DequantizeLinear";
  return name;
}
}  // namespace

std::vector<Fact> DequantizeLinear::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 3);
  const Fact& x = required(inputs, 0, name());
  const Fact& scale = required(inputs, 1, name());
  KILN_ENSURE(quant::is_quantized_type(x.dt) || x.dt == DatumType::I32,
              "DequantizeLinear: input must be an 8/16/32-bit integer, got {}", name_of(x.dt));
  KILN_ENSURE(is_float(scale.dt), "DequantizeLinear: scale must be float, got {}",
              name_of(scale.dt));
  quant::check_axis_param(x, scale, axis_, name(), "scale");
  if (inputs.size() > 2 && inputs[2]) {
    KILN_ENSURE(inputs[2]->dt == x.dt, "DequantizeLinear: zero point type {} differs from input {}",
                name_of(inputs[2]->dt), name_of(x.dt));
    quant::check_axis_param(x, *inputs[2], axis_, name(), "zero point");
  }
  return {Fact(scale.dt, x.shape)};
}

void DequantizeLinear::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, op_name());
  const Tensor& scale = required(inputs, 1, op_name());
  const Tensor* zp = inputs.size() > 2 ? inputs[2] : nullptr;
  if ((x.dtype() == DatumType::U8 || x.dtype() == DatumType::I8) &&
      scale.dtype() == DatumType::F32 && scale.numel() == 1 && (!zp || zp->numel() == 1)) {
    // The common case (activations): one scale and zero point, with no temporaries (a
    // steady-state run allocates nothing), the same float product as below.
    const float s = scale.data<float>()[0];
    const bool u8 = x.dtype() == DatumType::U8;
    const int32_t z = !zp  ? 0
                      : u8 ? int32_t{zp->data<uint8_t>()[0]}
                           : int32_t{zp->data<int8_t>()[0]};
    Tensor& y = ctx.output(0, DatumType::F32, x.shape());
    float* py = y.data<float>();
    const int64_t n = x.numel();
    auto run = [&](const auto* px) {
      for (int64_t i = 0; i < n; i++)
        py[i] = static_cast<float>(static_cast<int32_t>(px[i]) - z) * s;
    };
    if (u8)
      run(x.data<uint8_t>());
    else
      run(x.data<int8_t>());
    return;
  }
  quant::AxisParam sp = quant::axis_param(x.shape(), scale.shape(), axis_, name(), "scale");
  std::vector<float> sv = quant::to_f32(scale, name());
  std::vector<int32_t> zv = zp ? quant::to_i32(*zp, name()) : std::vector<int32_t>{0};
  KILN_ENSURE(zv.size() == 1 || zv.size() == sv.size(),
              "DequantizeLinear: zero point has {} values, scale has {}", zv.size(), sv.size());
  std::vector<int32_t> xv = quant::to_i32(x, name());
  Tensor& y = ctx.output(0, scale.dtype(), x.shape());
  dispatch_numeric(scale.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_integral_v<T>) {
      T* py = y.data<T>();
      for (int64_t i = 0; i < x.numel(); i++) {
        size_t p = static_cast<size_t>(sp.index(i));
        int64_t centered =
            static_cast<int64_t>(xv[static_cast<size_t>(i)]) - zv[zv.size() == 1 ? 0 : p];
        py[i] = static_cast<T>(static_cast<float>(centered) * sv[p]);
      }
    }
  });
}

Cost DequantizeLinear::cost(const FactRefs& inputs) const {
  return {};
}

}  // namespace kiln::ops
