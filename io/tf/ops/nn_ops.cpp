// TF translators for convolutions, pools, BiasAdd and FusedBatchNorm. TF's NHWC layout is
// translated faithfully: Transpose to NCHW, the NCHW op, Transpose back (the declutter stage
// pushes and cancels those transposes).
#include "base/error.h"
#include "io/tf/ops/helpers.h"
#include "ops/elementwise/binary.h"
#include "ops/elementwise/unary.h"
#include "ops/nn/conv.h"
#include "ops/nn/pool.h"
#include "ops/shape/reshape.h"
#include "ops/shape/squeeze.h"

namespace kiln::tf_io {

namespace {

using ops::BinaryKind;

// Spatial values (strides, dilations, ksize) of a 4-element NHWC/NCHW attribute.
std::vector<int64_t> spatial(NodeContext& ctx, const std::string& attr, bool nhwc) {
  auto v = ctx.attr_ints(attr, std::vector<int64_t>{1, 1, 1, 1});
  KILN_ENSURE(v.size() == 4, "{}: attribute '{}' must have 4 values, got {}", ctx.op_type(), attr,
              v.size());
  const int64_t batch = v[0], channel = nhwc ? v[3] : v[1];
  KILN_ENSURE(batch == 1 && channel == 1,
              "{}: '{}' along the batch or channel axis must be 1, got {}", ctx.op_type(), attr,
              ints_to_string(v));
  return nhwc ? std::vector<int64_t>{v[1], v[2]} : std::vector<int64_t>{v[2], v[3]};
}

ops::WindowGeometry geometry(NodeContext& ctx, bool nhwc, bool with_dilations) {
  ops::WindowGeometry g;
  g.strides = spatial(ctx, "strides", nhwc);
  if (with_dilations) g.dilations = spatial(ctx, "dilations", nhwc);
  std::string padding = ctx.attr_string("padding");
  if (padding == "SAME") {
    g.auto_pad = ops::AutoPad::SameUpper;  // TF puts the odd padding at the end
  } else if (padding == "VALID") {
    g.auto_pad = ops::AutoPad::Valid;
  } else if (padding == "EXPLICIT") {
    auto p = ctx.attr_ints("explicit_paddings");
    KILN_ENSURE(p.size() == 8, "{}: explicit_paddings must have 8 values, got {}", ctx.op_type(),
                p.size());
    // (begin, end) per axis in data_format order.
    size_t h = nhwc ? 1 : 2, w = nhwc ? 2 : 3;
    g.pads = {p[2 * h], p[2 * w], p[2 * h + 1], p[2 * w + 1]};
  } else {
    fail("{}: unsupported padding '{}'", ctx.op_type(), padding);
  }
  return g;
}

const std::vector<int64_t> kToNchw{0, 3, 1, 2};
const std::vector<int64_t> kToNhwc{0, 2, 3, 1};

// Wraps an NCHW op on x: transposes in and out when the node is NHWC.
void nchw_op(NodeContext& ctx, bool nhwc, OpPtr op, Outlet x, std::vector<Outlet> more) {
  if (nhwc) x = add_transpose(ctx, "to_nchw", x, kToNchw);
  std::vector<Outlet> inputs{x};
  inputs.insert(inputs.end(), more.begin(), more.end());
  Outlet y = ctx.add(nhwc ? "nchw" : "", std::move(op), inputs);
  if (nhwc) y = add_transpose(ctx, "", y, kToNhwc);
  ctx.set_output(0, y);
}

void conv2d(NodeContext& ctx) {
  bool nhwc = channels_last(ctx);
  auto g = geometry(ctx, nhwc, true);
  // HWIO -> OIHW
  Outlet w = add_transpose(ctx, "filter_oihw", ctx.input(1), {3, 2, 0, 1});
  nchw_op(ctx, nhwc, std::make_shared<ops::Conv>(g, 1), ctx.input(0), {w});
}

void depthwise(NodeContext& ctx) {
  bool nhwc = channels_last(ctx);
  auto g = geometry(ctx, nhwc, true);
  const Fact* wf = ctx.input_fact(1);
  KILN_ENSURE(wf && wf->rank() == 4 && wf->shape[2].is_int(),
              "DepthwiseConv2dNative: the filter shape [H, W, C, M] must be known at load time");
  const int64_t channels = wf->shape[2].as_int().value();
  // [H, W, C, M] -> [C, M, H, W] -> [C*M, 1, H, W]: output channel c*M + m, group c.
  Outlet w = add_transpose(ctx, "filter_cmhw", ctx.input(1), {2, 3, 0, 1});
  Outlet shape = ctx.add_const("filter_shape", Tensor::from_vector<int64_t>({4}, {-1, 1, 0, 0}));
  w = ctx.add("filter_oihw", std::make_shared<ops::Reshape>(false), {w, shape});
  nchw_op(ctx, nhwc, std::make_shared<ops::Conv>(g, channels), ctx.input(0), {w});
}

void pool(NodeContext& ctx, ops::PoolKind kind) {
  bool nhwc = channels_last(ctx);
  auto g = geometry(ctx, nhwc, false);
  g.kernel = spatial(ctx, "ksize", nhwc);
  ops::Pool::Options o;
  o.count_include_pad = false;  // TF averages over the valid cells only
  nchw_op(ctx, nhwc, std::make_shared<ops::Pool>(kind, g, o), ctx.input(0), {});
}

// A per-channel vector aligned with the channel axis of a rank-r NCHW tensor.
Outlet channel_vector(NodeContext& ctx, const std::string& suffix, Outlet v, size_t rank) {
  std::vector<int64_t> axes;
  for (size_t i = 2; i < rank; i++) axes.push_back(static_cast<int64_t>(i - 1));
  if (axes.empty()) return v;
  return ctx.add(suffix, std::make_shared<ops::Unsqueeze>(axes), {v});
}

}  // namespace

void register_tf_nn_ops(OpRegistry& r) {
  r.add("Conv2D", conv2d);
  r.add("DepthwiseConv2dNative", depthwise);
  r.add("MaxPool", [](NodeContext& ctx) { pool(ctx, ops::PoolKind::Max); });
  r.add("AvgPool", [](NodeContext& ctx) { pool(ctx, ops::PoolKind::Average); });
  r.add("BiasAdd", [](NodeContext& ctx) {
    Outlet x = ctx.input(0), b = ctx.input(1);
    if (!channels_last(ctx)) b = channel_vector(ctx, "bias", b, input_rank(ctx, 0, "NCHW BiasAdd"));
    ctx.set_output(0, ctx.add("", std::make_shared<ops::Binary>(BinaryKind::Add), {x, b}));
  });
  for (const char* op : {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"}) {
    r.add(op, [](NodeContext& ctx) {
      KILN_ENSURE(!ctx.attr_bool("is_training", true),
                  "{}: is_training=true (batch statistics) is not supported, only inference",
                  ctx.op_type());
      const float eps = ctx.attr_float("epsilon", 0.0001f);
      Outlet x = ctx.input(0), scale = ctx.input(1), offset = ctx.input(2);
      Outlet mean = ctx.input(3), var = ctx.input(4);
      // y = x * k + (offset - mean * k), k = scale / sqrt(var + eps); folds at analysis.
      Outlet e = ctx.add_const("epsilon", Tensor::scalar<float>(eps));
      Outlet ve = ctx.add("var_eps", std::make_shared<ops::Binary>(BinaryKind::Add), {var, e});
      Outlet sd = ctx.add("std", std::make_shared<ops::Unary>(ops::UnaryKind::Sqrt), {ve});
      Outlet k = ctx.add("scale", std::make_shared<ops::Binary>(BinaryKind::Div), {scale, sd});
      Outlet mk = ctx.add("mean_scale", std::make_shared<ops::Binary>(BinaryKind::Mul), {mean, k});
      Outlet sh = ctx.add("shift", std::make_shared<ops::Binary>(BinaryKind::Sub), {offset, mk});
      if (!channels_last(ctx)) {
        size_t rank = input_rank(ctx, 0, "NCHW FusedBatchNorm");
        k = channel_vector(ctx, "scale_nchw", k, rank);
        sh = channel_vector(ctx, "shift_nchw", sh, rank);
      }
      Outlet xk = ctx.add("mul", std::make_shared<ops::Binary>(BinaryKind::Mul), {x, k});
      ctx.set_output(0, ctx.add("", std::make_shared<ops::Binary>(BinaryKind::Add), {xk, sh}));
      // Inference mode: the statistics outputs pass the running statistics through.
      for (size_t i = 1; i < 6; i++) ctx.set_output(i, i % 2 ? mean : var);
    });
  }
}

}  // namespace kiln::tf_io
