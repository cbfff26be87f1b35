// ONNX translators for the nn op family.
#include "io/onnx/ops/register_all.h"
#include "ops/nn/batch_norm.h"
#include "ops/nn/conv.h"
#include "ops/nn/conv_transpose.h"
#include "ops/nn/dropout.h"
#include "ops/nn/gemm.h"
#include "ops/nn/global_pool.h"
#include "ops/nn/instance_norm.h"
#include "ops/nn/layer_norm.h"
#include "ops/nn/lrn.h"
#include "ops/nn/matmul.h"
#include "ops/nn/mvn.h"
#include "ops/nn/pool.h"

namespace kiln::onnx_io {

namespace {

ops::WindowGeometry read_geometry(const NodeContext& ctx) {
  ops::WindowGeometry g;
  g.kernel = ctx.attr_ints("kernel_shape", std::vector<int64_t>{});
  g.strides = ctx.attr_ints("strides", std::vector<int64_t>{});
  g.dilations = ctx.attr_ints("dilations", std::vector<int64_t>{});
  g.pads = ctx.attr_ints("pads", std::vector<int64_t>{});
  g.auto_pad = ops::parse_auto_pad(ctx.attr_string("auto_pad", "NOTSET"));
  g.ceil_mode = ctx.attr_int("ceil_mode", 0) != 0;
  return g;
}

void add_pool(NodeContext& ctx, ops::PoolKind kind) {
  ops::WindowGeometry g = read_geometry(ctx);
  KILN_ENSURE(!g.kernel.empty(), "{}: kernel_shape attribute is required", ctx.op_type());
  ops::Pool::Options o;
  o.count_include_pad = ctx.attr_int("count_include_pad", 0) != 0;
  o.storage_order = ctx.attr_int("storage_order", 0);
  // LpPool's p was a float attribute before opset 2.
  if (kind == ops::PoolKind::Lp) {
    o.p = ctx.opset() < 2 ? ctx.attr_float("p", 2.0f) : static_cast<float>(ctx.attr_int("p", 2));
  }
  ctx.wire(std::make_shared<ops::Pool>(kind, g, o));
}

DatumType onnx_float_type(int64_t code) {
  switch (code) {
    case onnx::TensorProto::FLOAT:
      return DatumType::F32;
    case onnx::TensorProto::DOUBLE:
      return DatumType::F64;
    case onnx::TensorProto::FLOAT16:
      return DatumType::F16;
    case onnx::TensorProto::BFLOAT16:
      return DatumType::BF16;
    default:
      fail("unsupported stash_type {}", code);
  }
}

}  // namespace

void register_nn_ops(OpRegistry& registry) {
  registry.add("Conv", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::Conv>(read_geometry(ctx), ctx.attr_int("group", 1)));
  });
  registry.add("ConvTranspose", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::ConvTranspose>(
        read_geometry(ctx), ctx.attr_int("group", 1),
        ctx.attr_ints("output_padding", std::vector<int64_t>{}),
        ctx.attr_ints("output_shape", std::vector<int64_t>{})));
  });
  registry.add("MaxPool", [](NodeContext& ctx) { add_pool(ctx, ops::PoolKind::Max); });
  registry.add("AveragePool", [](NodeContext& ctx) { add_pool(ctx, ops::PoolKind::Average); });
  registry.add("LpPool", [](NodeContext& ctx) { add_pool(ctx, ops::PoolKind::Lp); });
  registry.add("GlobalAveragePool", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::GlobalPool>(ops::PoolKind::Average));
  });
  registry.add("GlobalMaxPool", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::GlobalPool>(ops::PoolKind::Max));
  });
  registry.add("GlobalLpPool", [](NodeContext& ctx) {
    float p =
        ctx.opset() < 2 ? ctx.attr_float("p", 2.0f) : static_cast<float>(ctx.attr_int("p", 2));
    ctx.wire(std::make_shared<ops::GlobalPool>(ops::PoolKind::Lp, p));
  });
  registry.add("BatchNormalization", [](NodeContext& ctx) {
    // Before opset 9 only spatial (per-channel) statistics are supported.
    KILN_ENSURE(ctx.attr_int("spatial", 1) == 1, "BatchNormalization: spatial=0 is not supported");
    bool training = ctx.opset() >= 14 && ctx.attr_int("training_mode", 0) != 0;
    ctx.wire(std::make_shared<ops::BatchNorm>(ctx.attr_float("epsilon", 1e-5f),
                                              ctx.attr_float("momentum", 0.9f), training));
  });
  registry.add("InstanceNormalization", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::InstanceNorm>(ctx.attr_float("epsilon", 1e-5f)));
  });
  registry.add("LayerNormalization", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::LayerNorm>(
        ctx.attr_int("axis", -1), ctx.attr_float("epsilon", 1e-5f),
        onnx_float_type(ctx.attr_int("stash_type", onnx::TensorProto::FLOAT))));
  });
  registry.add("LRN", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::Lrn>(ctx.attr_int("size"), ctx.attr_float("alpha", 1e-4f),
                                        ctx.attr_float("beta", 0.75f),
                                        ctx.attr_float("bias", 1.0f)));
  });
  registry.add("MeanVarianceNormalization", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::MeanVarianceNorm>(
        ctx.attr_ints("axes", std::vector<int64_t>{0, 2, 3})));
  });
  registry.add("Gemm", [](NodeContext& ctx) {
    // Before opset 7, broadcast=0 required C to be [M, N]; broadcasting it anyway is harmless.
    ctx.wire(std::make_shared<ops::Gemm>(
        ctx.attr_float("alpha", 1.0f), ctx.attr_float("beta", 1.0f), ctx.attr_int("transA", 0) != 0,
        ctx.attr_int("transB", 0) != 0));
  });
  registry.add("MatMul", [](NodeContext& ctx) { ctx.wire(std::make_shared<ops::MatMul>()); });
  registry.add("Dropout", [](NodeContext& ctx) {
    std::optional<int64_t> seed;
    if (ctx.has_attr("seed")) seed = ctx.attr_int("seed");
    bool may_train = ctx.opset() >= 12 && ctx.has_input(2);
    ctx.wire(std::make_shared<ops::Dropout>(ctx.attr_float("ratio", 0.5f), seed, ctx.opset() >= 10,
                                            may_train));
  });
}

}  // namespace kiln::onnx_io
