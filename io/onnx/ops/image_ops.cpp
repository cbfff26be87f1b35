// ONNX translators for image ops (Resize, GridSample, RoiAlign, NMS, DepthToSpace...) and
// quantization ops (QuantizeLinear, QLinearConv, MatMulInteger...).
#include "io/onnx/ops/register_all.h"
#include "io/onnx/tensor_proto.h"
#include "ops/quant/conv_integer.h"
#include "ops/quant/dequantize_linear.h"
#include "ops/quant/dynamic_quantize_linear.h"
#include "ops/quant/matmul_integer.h"
#include "ops/quant/qlinear_conv.h"
#include "ops/quant/qlinear_matmul.h"
#include "ops/quant/quantize_linear.h"

namespace kiln::onnx_io {

namespace {

ops::quant::ConvGeometry conv_geometry(NodeContext& ctx) {
  ops::quant::ConvGeometry g;
  g.auto_pad = ctx.attr_string("auto_pad", "NOTSET");
  g.kernel_shape = ctx.attr_ints("kernel_shape", std::vector<int64_t>{});
  g.strides = ctx.attr_ints("strides", std::vector<int64_t>{});
  g.dilations = ctx.attr_ints("dilations", std::vector<int64_t>{});
  g.pads = ctx.attr_ints("pads", std::vector<int64_t>{});
  g.group = ctx.attr_int("group", 1);
  return g;
}

void register_quant_ops(OpRegistry& registry) {
  registry.add("QuantizeLinear", [](NodeContext& ctx) {
    DatumType out = DatumType::U8;
    if (ctx.has_attr("output_dtype") && ctx.attr_int("output_dtype") != 0) {
      auto dt = datum_type_from_onnx(static_cast<int>(ctx.attr_int("output_dtype")));
      KILN_ENSURE(dt.has_value(), "QuantizeLinear: unsupported output_dtype {}",
                  ctx.attr_int("output_dtype"));
      out = *dt;
    }
    KILN_ENSURE(ctx.attr_int("block_size", 0) == 0,
                "QuantizeLinear: block quantization is not supported");
    ctx.wire(std::make_shared<ops::QuantizeLinear>(ctx.attr_int("axis", 1), out));
  });
  registry.add("DequantizeLinear", [](NodeContext& ctx) {
    KILN_ENSURE(ctx.attr_int("block_size", 0) == 0,
                "DequantizeLinear: block quantization is not supported");
    ctx.wire(std::make_shared<ops::DequantizeLinear>(ctx.attr_int("axis", 1)));
  });
  registry.add("DynamicQuantizeLinear",
               [](NodeContext& ctx) { ctx.wire(std::make_shared<ops::DynamicQuantizeLinear>()); });
  registry.add("MatMulInteger",
               [](NodeContext& ctx) { ctx.wire(std::make_shared<ops::MatMulInteger>()); });
  registry.add("QLinearMatMul",
               [](NodeContext& ctx) { ctx.wire(std::make_shared<ops::QLinearMatMul>()); });
  registry.add("ConvInteger", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::ConvInteger>(conv_geometry(ctx)));
  });
  registry.add("QLinearConv", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::QLinearConv>(conv_geometry(ctx)));
  });
}

}  // namespace

void register_image_ops(OpRegistry& registry) {
  register_quant_ops(registry);
}

}  // namespace kiln::onnx_io
