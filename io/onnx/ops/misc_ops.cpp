// ONNX translators for ops that fit no other family.
#include "io/onnx/ops/register_all.h"
#include "ops/core/identity.h"

namespace kiln::onnx_io {

void register_misc_ops(OpRegistry& registry) {
  registry.add("Identity", [](NodeContext& ctx) { ctx.wire(std::make_shared<ops::Identity>()); });
}

}  // namespace kiln::onnx_io
