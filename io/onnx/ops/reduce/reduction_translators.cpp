#include <utility>

#include "io/onnx/ops/reduce/reduce_translators.h"
#include "ops/reduce/arg_reduce.h"
#include "ops/reduce/reduce.h"

namespace kiln::onnx_io {

namespace {

void add_reduce(OpRegistry& registry, const std::string& op_type, ops::ReduceKind kind,
                int64_t axes_input_opset) {
  registry.add(op_type, [kind, axes_input_opset](NodeContext& ctx) {
    bool keepdims = ctx.attr_int("keepdims", 1) != 0;
    if (ctx.opset() >= axes_input_opset) {
      bool noop = ctx.attr_int("noop_with_empty_axes", 0) != 0;
      ctx.wire(std::make_shared<ops::Reduce>(kind, std::nullopt, keepdims, noop));
    } else {
      std::optional<std::vector<int64_t>> axes;
      if (ctx.has_attr("axes")) axes = ctx.attr_ints("axes");
      // An absent axes attribute reduces everything, like an empty list.
      if (!axes) axes = std::vector<int64_t>{};
      ctx.wire(std::make_shared<ops::Reduce>(kind, std::move(axes), keepdims));
    }
  });
}

}  // namespace

void register_reduction_translators(OpRegistry& registry) {
  using ops::ReduceKind;
  add_reduce(registry, "ReduceSum", ReduceKind::Sum, 13);
  add_reduce(registry, "ReduceMean", ReduceKind::Mean, 18);
  add_reduce(registry, "ReduceMax", ReduceKind::Max, 18);
  add_reduce(registry, "ReduceMin", ReduceKind::Min, 18);
  add_reduce(registry, "ReduceProd", ReduceKind::Prod, 18);
  add_reduce(registry, "ReduceL1", ReduceKind::L1, 18);
  add_reduce(registry, "ReduceL2", ReduceKind::L2, 18);
  add_reduce(registry, "ReduceLogSum", ReduceKind::LogSum, 18);
  add_reduce(registry, "ReduceLogSumExp", ReduceKind::LogSumExp, 18);
  add_reduce(registry, "ReduceSumSquare", ReduceKind::SumSquare, 18);
  for (bool is_max : {true, false}) {
    registry.add(is_max ? "ArgMax" : "ArgMin", [is_max](NodeContext& ctx) {
      ctx.wire(std::make_shared<ops::ArgReduce>(is_max, ctx.attr_int("axis", 0),
                                                ctx.attr_int("keepdims", 1) != 0,
                                                ctx.attr_int("select_last_index", 0) != 0));
    });
  }
}

}  // namespace kiln::onnx_io
