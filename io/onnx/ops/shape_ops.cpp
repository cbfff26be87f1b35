// ONNX translators for the shape op family.
#include "io/onnx/ops/register_all.h"
#include "io/onnx/tensor_proto.h"
#include "ops/shape/compress.h"
#include "ops/shape/concat.h"
#include "ops/shape/constant_of_shape.h"
#include "ops/shape/expand.h"
#include "ops/shape/eye_like.h"
#include "ops/shape/flatten.h"
#include "ops/shape/gather.h"
#include "ops/shape/non_zero.h"
#include "ops/shape/one_hot.h"
#include "ops/shape/pad.h"
#include "ops/shape/range.h"
#include "ops/shape/reshape.h"
#include "ops/shape/reverse_sequence.h"
#include "ops/shape/scatter.h"
#include "ops/shape/shape_of.h"
#include "ops/shape/slice.h"
#include "ops/shape/split.h"
#include "ops/shape/squeeze.h"
#include "ops/shape/tile.h"
#include "ops/shape/transpose.h"
#include "ops/shape/trilu.h"

namespace kiln::onnx_io {
namespace {

template <typename T>
Tensor vector_tensor(const std::vector<T>& v) {
  return Tensor::from_vector<T>({static_cast<int64_t>(v.size())}, v);
}

Tensor constant_value(NodeContext& ctx) {
  KILN_ENSURE(!ctx.has_attr("sparse_value"), "Constant: sparse_value is not supported");
  if (ctx.has_attr("value")) return ctx.attr_tensor("value");
  if (ctx.has_attr("value_float")) return Tensor::scalar<float>(ctx.attr_float("value_float"));
  if (ctx.has_attr("value_floats")) return vector_tensor(ctx.attr_floats("value_floats"));
  if (ctx.has_attr("value_int")) return Tensor::scalar<int64_t>(ctx.attr_int("value_int"));
  if (ctx.has_attr("value_ints")) return vector_tensor(ctx.attr_ints("value_ints"));
  if (ctx.has_attr("value_string"))
    return Tensor::scalar<std::string>(ctx.attr_string("value_string"));
  if (ctx.has_attr("value_strings")) return vector_tensor(ctx.attr_strings("value_strings"));
  fail("Constant: no value attribute");
}

std::optional<std::vector<int64_t>> optional_ints(NodeContext& ctx, const std::string& name) {
  if (!ctx.has_attr(name)) return std::nullopt;
  return ctx.attr_ints(name);
}

}  // namespace

void register_shape_ops(OpRegistry& registry) {
  registry.add("Constant", [](NodeContext& ctx) {
    ctx.set_output(0, ctx.add_const("value", constant_value(ctx)));
  });
  registry.add("Reshape", [](NodeContext& ctx) {
    KILN_ENSURE(ctx.opset() >= 5, "Reshape: opset {} (shape attribute) is not supported",
                ctx.opset());
    ctx.wire(std::make_shared<ops::Reshape>(ctx.attr_int("allowzero", 0) != 0));
  });
  registry.add("Flatten", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::Flatten>(ctx.attr_int("axis", 1)));
  });
  registry.add("Transpose", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::Transpose>(optional_ints(ctx, "perm")));
  });
  registry.add("Concat", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::Concat>(ctx.attr_int("axis")));
  });
  registry.add("Slice", [](NodeContext& ctx) {
    if (ctx.opset() < 10) {
      ctx.wire(std::make_shared<ops::Slice>(ctx.attr_ints("starts"), ctx.attr_ints("ends"),
                                            optional_ints(ctx, "axes")));
    } else {
      ctx.wire(std::make_shared<ops::Slice>());
    }
  });
  registry.add("Gather", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::Gather>(ctx.attr_int("axis", 0)));
  });
  registry.add("GatherElements", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::GatherElements>(ctx.attr_int("axis", 0)));
  });
  registry.add("GatherND", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::GatherND>(ctx.attr_int("batch_dims", 0)));
  });
  registry.add("ScatterElements", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::ScatterElements>(
        ctx.attr_int("axis", 0),
        ops::parse_scatter_reduction(ctx.attr_string("reduction", "none"))));
  });
  registry.add("Scatter", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::ScatterElements>(ctx.attr_int("axis", 0)));
  });
  registry.add("ScatterND", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::ScatterND>(
        ops::parse_scatter_reduction(ctx.attr_string("reduction", "none"))));
  });
  registry.add("Squeeze", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::Squeeze>(ctx.opset() < 13 ? optional_ints(ctx, "axes")
                                                             : std::nullopt));
  });
  registry.add("Unsqueeze", [](NodeContext& ctx) {
    if (ctx.opset() < 13) {
      ctx.wire(std::make_shared<ops::Unsqueeze>(ctx.attr_ints("axes")));
    } else {
      ctx.wire(std::make_shared<ops::Unsqueeze>());
    }
  });
  registry.add("Expand", [](NodeContext& ctx) { ctx.wire(std::make_shared<ops::Expand>()); });
  registry.add("Shape", [](NodeContext& ctx) {
    std::optional<int64_t> end;
    if (ctx.has_attr("end")) end = ctx.attr_int("end");
    ctx.wire(std::make_shared<ops::ShapeOf>(ctx.attr_int("start", 0), end));
  });
  registry.add("Size", [](NodeContext& ctx) { ctx.wire(std::make_shared<ops::Size>()); });
  registry.add("Tile", [](NodeContext& ctx) {
    KILN_ENSURE(ctx.opset() >= 6, "Tile: opset {} (tiles/axis inputs) is not supported",
                ctx.opset());
    ctx.wire(std::make_shared<ops::Tile>());
  });
  registry.add("Pad", [](NodeContext& ctx) {
    auto mode = ops::parse_pad_mode(ctx.attr_string("mode", "constant"));
    if (ctx.opset() < 11) {
      std::string pads_name = ctx.has_attr("pads") ? "pads" : "paddings";
      ctx.wire(std::make_shared<ops::Pad>(mode, ctx.attr_ints(pads_name),
                                          ctx.attr_float("value", 0.0f)));
    } else {
      ctx.wire(std::make_shared<ops::Pad>(mode));
    }
  });
  registry.add("Split", [](NodeContext& ctx) {
    std::optional<std::vector<int64_t>> split;
    if (ctx.opset() < 13) split = optional_ints(ctx, "split");
    size_t outputs = ctx.num_outputs();
    if (ctx.has_attr("num_outputs")) {
      auto n = ctx.attr_int("num_outputs");
      KILN_ENSURE(n >= 1 && static_cast<size_t>(n) == outputs,
                  "Split: num_outputs {} but node has {} outputs", n, outputs);
    }
    ctx.wire(std::make_shared<ops::Split>(ctx.attr_int("axis", 0), outputs, split));
  });
  registry.add("ConstantOfShape", [](NodeContext& ctx) {
    Tensor value;
    if (ctx.has_attr("value")) value = ctx.attr_tensor("value");
    ctx.wire(std::make_shared<ops::ConstantOfShape>(value));
  });
  registry.add("Range", [](NodeContext& ctx) { ctx.wire(std::make_shared<ops::Range>()); });
  registry.add("Trilu", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::Trilu>(ctx.attr_int("upper", 1) != 0));
  });
  registry.add("OneHot", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::OneHot>(ctx.attr_int("axis", -1)));
  });
  registry.add("EyeLike", [](NodeContext& ctx) {
    std::optional<DatumType> dt;
    if (ctx.has_attr("dtype")) {
      dt = datum_type_from_onnx(static_cast<int>(ctx.attr_int("dtype")));
      KILN_ENSURE(dt.has_value(), "EyeLike: unsupported dtype {}", ctx.attr_int("dtype"));
    }
    ctx.wire(std::make_shared<ops::EyeLike>(dt, ctx.attr_int("k", 0)));
  });
  registry.add("Compress", [](NodeContext& ctx) {
    std::optional<int64_t> axis;
    if (ctx.has_attr("axis")) axis = ctx.attr_int("axis");
    ctx.wire(std::make_shared<ops::Compress>(axis));
  });
  registry.add("NonZero", [](NodeContext& ctx) { ctx.wire(std::make_shared<ops::NonZero>()); });
  registry.add("ReverseSequence", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::ReverseSequence>(ctx.attr_int("batch_axis", 1),
                                                    ctx.attr_int("time_axis", 0)));
  });
}

}  // namespace kiln::onnx_io
