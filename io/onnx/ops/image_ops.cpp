// ONNX translators for image ops (Resize, GridSample, RoiAlign, NMS, DepthToSpace,
// ImageDecoder...) and quantization ops (QuantizeLinear, QLinearConv, MatMulInteger...).
#include "io/onnx/ops/register_all.h"
#include "io/onnx/tensor_proto.h"
#include "ops/image/depth_to_space.h"
#include "ops/image/grid_sample.h"
#include "ops/image/image_decoder.h"
#include "ops/image/max_unpool.h"
#include "ops/image/non_max_suppression.h"
#include "ops/image/resize.h"
#include "ops/image/roi_align.h"
#include "ops/image/space_to_depth.h"
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

DatumType onnx_dtype(NodeContext& ctx, const std::string& attr) {
  auto dt = datum_type_from_onnx(static_cast<int>(ctx.attr_int(attr)));
  KILN_ENSURE(dt.has_value(), "{}: unsupported {} {}", ctx.op_type(), attr, ctx.attr_int(attr));
  return *dt;
}

// Resize-10 and Upsample: asymmetric coordinates, nearest picks like the original Upsample.
ops::Resize::Options legacy_resize_options(NodeContext& ctx) {
  ops::Resize::Options o;
  o.mode = ops::Resize::parse_mode(ctx.attr_string("mode", "nearest"));
  o.coord = ops::Resize::Coord::Asymmetric;
  o.nearest = ops::Resize::Nearest::Simple;
  return o;
}

void register_resize_ops(OpRegistry& registry) {
  registry.add("Resize", [](NodeContext& ctx) {
    if (ctx.opset() < 11) {
      auto op = std::make_shared<ops::Resize>(legacy_resize_options(ctx));
      ctx.set_output(0, ctx.add_node("", op, {ctx.input(0), Outlet{}, ctx.input(1), Outlet{}}));
      return;
    }
    ops::Resize::Options o;
    o.mode = ops::Resize::parse_mode(ctx.attr_string("mode", "nearest"));
    o.coord =
        ops::Resize::parse_coord(ctx.attr_string("coordinate_transformation_mode", "half_pixel"));
    o.nearest = ops::Resize::parse_nearest(ctx.attr_string("nearest_mode", "round_prefer_floor"));
    o.cubic_coeff_a = ctx.attr_float("cubic_coeff_a", -0.75f);
    o.exclude_outside = ctx.attr_int("exclude_outside", 0) != 0;
    o.extrapolation_value = ctx.attr_float("extrapolation_value", 0.f);
    o.antialias = ctx.attr_int("antialias", 0) != 0;
    o.axes = ctx.attr_ints("axes", std::vector<int64_t>{});
    o.aspect = ops::Resize::parse_aspect(ctx.attr_string("keep_aspect_ratio_policy", "stretch"));
    o.integer_resized_length = ctx.opset() >= 18;
    ctx.wire(std::make_shared<ops::Resize>(o));
  });
  registry.add("Upsample", [](NodeContext& ctx) {
    auto op = std::make_shared<ops::Resize>(legacy_resize_options(ctx), "Upsample");
    Outlet scales;
    if (ctx.opset() < 9) {
      std::vector<float> s = ctx.attr_floats("scales");
      scales =
          ctx.add_const("scales", Tensor::from_vector<float>({static_cast<int64_t>(s.size())}, s));
    } else {
      scales = ctx.input(1);
    }
    ctx.set_output(0, ctx.add_node("", op, {ctx.input(0), Outlet{}, scales, Outlet{}}));
  });
}

void register_sampling_ops(OpRegistry& registry) {
  registry.add(
      "ImageDecoder",
      [](NodeContext& ctx) {
        std::string f = ctx.attr_string("pixel_format", "RGB");
        KILN_ENSURE(f == "RGB" || f == "BGR" || f == "Grayscale",
                    "ImageDecoder: pixel_format must be RGB, BGR or Grayscale, got '{}'", f);
        ctx.wire(std::make_shared<ops::ImageDecoder>(f == "RGB"   ? ops::PixelFormat::Rgb
                                                     : f == "BGR" ? ops::PixelFormat::Bgr
                                                                  : ops::PixelFormat::Grayscale));
      },
      "", 20);
  registry.add("DepthToSpace", [](NodeContext& ctx) {
    std::string mode = ctx.attr_string("mode", "DCR");
    KILN_ENSURE(mode == "DCR" || mode == "CRD", "DepthToSpace: unknown mode '{}'", mode);
    ctx.wire(std::make_shared<ops::DepthToSpace>(ctx.attr_int("blocksize"), mode == "CRD"));
  });
  registry.add("SpaceToDepth", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::SpaceToDepth>(ctx.attr_int("blocksize")));
  });
  registry.add("GridSample", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::GridSample>(
        ops::GridSample::parse_mode(
            ctx.attr_string("mode", ctx.opset() >= 20 ? "linear" : "bilinear")),
        ops::GridSample::parse_padding(ctx.attr_string("padding_mode", "zeros")),
        ctx.attr_int("align_corners", 0) != 0));
  });
  registry.add("RoiAlign", [](NodeContext& ctx) {
    ops::RoiAlign::Options o;
    std::string mode = ctx.attr_string("mode", "avg");
    KILN_ENSURE(mode == "avg" || mode == "max", "RoiAlign: unknown mode '{}'", mode);
    o.max_mode = mode == "max";
    o.output_height = ctx.attr_int("output_height", 1);
    o.output_width = ctx.attr_int("output_width", 1);
    o.sampling_ratio = ctx.attr_int("sampling_ratio", 0);
    o.spatial_scale = ctx.attr_float("spatial_scale", 1.f);
    std::string ctm = ctx.attr_string("coordinate_transformation_mode",
                                      ctx.opset() >= 16 ? "half_pixel" : "output_half_pixel");
    KILN_ENSURE(ctm == "half_pixel" || ctm == "output_half_pixel",
                "RoiAlign: unknown coordinate_transformation_mode '{}'", ctm);
    o.half_pixel = ctm == "half_pixel";
    ctx.wire(std::make_shared<ops::RoiAlign>(o));
  });
  registry.add("NonMaxSuppression", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::NonMaxSuppression>(ctx.attr_int("center_point_box", 0) != 0));
  });
  registry.add("MaxUnpool", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::MaxUnpool>(ctx.attr_ints("kernel_shape"),
                                              ctx.attr_ints("strides", std::vector<int64_t>{}),
                                              ctx.attr_ints("pads", std::vector<int64_t>{})));
  });
}

void register_quant_ops(OpRegistry& registry) {
  registry.add("QuantizeLinear", [](NodeContext& ctx) {
    DatumType out = DatumType::U8;
    if (ctx.has_attr("output_dtype") && ctx.attr_int("output_dtype") != 0)
      out = onnx_dtype(ctx, "output_dtype");
    ops::QuantizeOptions o;
    o.block_size = ctx.attr_int("block_size", 0);
    KILN_ENSURE(o.block_size >= 0, "QuantizeLinear: negative block_size {}", o.block_size);
    o.saturate = ctx.attr_int("saturate", 1) != 0;
    if (ctx.has_attr("precision") && ctx.attr_int("precision") != 0)
      o.precision = onnx_dtype(ctx, "precision");
    else if (ctx.opset() < 23)
      // Versions 19 and 21 leave the division's precision open (23 made it the scale's type):
      // float, as ONNX Runtime computes it, not float16 for float16 inputs.
      o.precision = DatumType::F32;
    ctx.wire(std::make_shared<ops::QuantizeLinear>(ctx.attr_int("axis", 1), out, o));
  });
  registry.implements("QuantizeLinear", 25);
  registry.add("DequantizeLinear", [](NodeContext& ctx) {
    int64_t block = ctx.attr_int("block_size", 0);
    KILN_ENSURE(block >= 0, "DequantizeLinear: negative block_size {}", block);
    std::optional<DatumType> out;
    if (ctx.has_attr("output_dtype") && ctx.attr_int("output_dtype") != 0)
      out = onnx_dtype(ctx, "output_dtype");
    ctx.wire(std::make_shared<ops::DequantizeLinear>(ctx.attr_int("axis", 1), block, out));
  });
  registry.implements("DequantizeLinear", 25);
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
  register_resize_ops(registry);
  register_sampling_ops(registry);
  register_quant_ops(registry);
}

}  // namespace kiln::onnx_io
