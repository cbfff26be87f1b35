#include <optional>

#include "io/onnx/ops/reduce/reduce_translators.h"
#include "ops/linalg/det.h"
#include "ops/linalg/einsum.h"
#include "ops/reduce/cumsum.h"
#include "ops/reduce/topk.h"
#include "ops/shape/unique.h"

namespace kiln::onnx_io {

void register_misc_reduce_translators(OpRegistry& registry) {
  registry.add("CumSum", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::CumSum>(ctx.attr_int("exclusive", 0) != 0,
                                           ctx.attr_int("reverse", 0) != 0));
  });
  registry.add("TopK", [](NodeContext& ctx) {
    int64_t axis = ctx.attr_int("axis", -1);
    bool largest = ctx.attr_int("largest", 1) != 0;
    bool sorted = ctx.attr_int("sorted", 1) != 0;
    if (ctx.opset() < 10) {
      ctx.wire(std::make_shared<ops::TopK>(axis, largest, sorted, ctx.attr_int("k")));
    } else {
      ctx.wire(std::make_shared<ops::TopK>(axis, largest, sorted));
    }
  });
  registry.add("Einsum", [](NodeContext& ctx) {
    ctx.wire(std::make_shared<ops::Einsum>(ctx.attr_string("equation")));
  });
  registry.add("Det", [](NodeContext& ctx) { ctx.wire(std::make_shared<ops::Det>()); });
  registry.add("Unique", [](NodeContext& ctx) {
    std::optional<int64_t> axis;
    if (ctx.has_attr("axis")) axis = ctx.attr_int("axis");
    ctx.wire(std::make_shared<ops::Unique>(ctx.attr_int("sorted", 1) != 0, axis));
  });
}

}  // namespace kiln::onnx_io
