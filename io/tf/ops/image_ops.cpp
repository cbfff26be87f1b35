// TF translators for image resizing: NHWC images resized on axes 1 and 2 directly.
#include "base/error.h"
#include "io/tf/ops/helpers.h"
#include "ops/elementwise/cast.h"
#include "ops/image/resize.h"

namespace kiln::tf_io {

namespace {

using ops::Resize;

void resize(NodeContext& ctx, Resize::Mode mode) {
  const bool align = ctx.attr_bool("align_corners", false);
  const bool half = ctx.attr_bool("half_pixel_centers", false);
  KILN_ENSURE(!(align && half), "{}: align_corners and half_pixel_centers are exclusive",
              ctx.op_type());
  Resize::Options o;
  o.mode = mode;
  o.axes = {1, 2};
  if (mode == Resize::Mode::Linear) {
    o.coord = align  ? Resize::Coord::AlignCorners
              : half ? Resize::Coord::HalfPixel
                     : Resize::Coord::Asymmetric;
  } else {
    // TF: round(out * scale) with align_corners, else floor((out [+ 0.5]) * scale).
    o.coord = align  ? Resize::Coord::AlignCorners
              : half ? Resize::Coord::TfHalfPixelForNn
                     : Resize::Coord::Asymmetric;
    o.nearest = align ? Resize::Nearest::RoundPreferCeil : Resize::Nearest::Floor;
  }
  Outlet sizes = ctx.add("sizes", std::make_shared<ops::Cast>(DatumType::I64), {ctx.input(1)});
  Outlet y = ctx.add("", std::make_shared<Resize>(o, ctx.op_type()),
                     {ctx.input(0), Outlet{}, Outlet{}, sizes});
  ctx.set_output(0, y);
}

}  // namespace

void register_tf_image_ops(OpRegistry& r) {
  r.add("ResizeBilinear", [](NodeContext& ctx) { resize(ctx, Resize::Mode::Linear); });
  r.add("ResizeNearestNeighbor", [](NodeContext& ctx) { resize(ctx, Resize::Mode::Nearest); });
}

}  // namespace kiln::tf_io
