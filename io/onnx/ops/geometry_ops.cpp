// ONNX translators for the layout and sampling ops added since opset 18: Col2Im (18),
// CenterCropPad (18), DeformConv (19, 22), AffineGrid (20), TensorScatter (24), and MaxRoiPool
// (1, 22), which kiln lacked.
#include "io/onnx/ops/register_all.h"
#include "ops/image/affine_grid.h"
#include "ops/image/col2im.h"
#include "ops/image/max_roi_pool.h"
#include "ops/nn/deform_conv.h"
#include "ops/shape/center_crop_pad.h"
#include "ops/shape/tensor_scatter.h"

namespace kiln::onnx_io {

namespace {
std::vector<int64_t> ints_or_empty(NodeContext& ctx, const std::string& name) {
  return ctx.attr_ints(name, std::vector<int64_t>{});
}
}  // namespace

void register_geometry_ops(OpRegistry& registry) {
  registry.add(
      "Col2Im",
      [](NodeContext& ctx) {
        ctx.wire(std::make_shared<ops::Col2Im>(ints_or_empty(ctx, "dilations"),
                                               ints_or_empty(ctx, "pads"),
                                               ints_or_empty(ctx, "strides")));
      },
      "", 18);
  registry.add(
      "CenterCropPad",
      [](NodeContext& ctx) {
        std::optional<std::vector<int64_t>> axes;
        if (ctx.has_attr("axes")) axes = ctx.attr_ints("axes");
        ctx.wire(std::make_shared<ops::CenterCropPad>(axes));
      },
      "", 18);
  registry.add(
      "DeformConv",
      [](NodeContext& ctx) {
        ops::DeformConvOptions o;
        o.kernel_shape = ints_or_empty(ctx, "kernel_shape");
        o.strides = ints_or_empty(ctx, "strides");
        o.dilations = ints_or_empty(ctx, "dilations");
        o.pads = ints_or_empty(ctx, "pads");
        o.group = ctx.attr_int("group", 1);
        o.offset_group = ctx.attr_int("offset_group", 1);
        ctx.wire(std::make_shared<ops::DeformConv>(o));
      },
      "", 22);
  registry.add(
      "AffineGrid",
      [](NodeContext& ctx) {
        ctx.wire(std::make_shared<ops::AffineGrid>(ctx.attr_int("align_corners", 0) != 0));
      },
      "", 20);
  registry.add(
      "TensorScatter",
      [](NodeContext& ctx) {
        std::string mode = ctx.attr_string("mode", "linear");
        KILN_ENSURE(mode == "linear" || mode == "circular",
                    "TensorScatter: mode must be linear or circular, got '{}'", mode);
        ctx.wire(
            std::make_shared<ops::TensorScatter>(ctx.attr_int("axis", -2), mode == "circular"));
      },
      "", 24);
  registry.add(
      "MaxRoiPool",
      [](NodeContext& ctx) {
        auto pooled = ctx.attr_ints("pooled_shape");
        KILN_ENSURE(pooled.size() == 2, "MaxRoiPool: pooled_shape must have 2 values");
        ctx.wire(std::make_shared<ops::MaxRoiPool>(pooled[0], pooled[1],
                                                   ctx.attr_float("spatial_scale", 1.0f)));
      },
      "", 22);
}

}  // namespace kiln::onnx_io
