// ONNX translators for the normalizations added since opset 18: GroupNormalization (18, 21),
// RMSNormalization (23), LpNormalization (1, 22).
#include "io/onnx/ops/register_all.h"
#include "ops/nn/group_norm.h"
#include "ops/nn/lp_norm.h"
#include "ops/nn/rms_norm.h"

namespace kiln::onnx_io {

void register_norm_ops(OpRegistry& registry) {
  registry.add(
      "GroupNormalization",
      [](NodeContext& ctx) {
        // Opset 18 scales and shifts per group, 21 per channel.
        ctx.wire(std::make_shared<ops::GroupNorm>(
            ctx.attr_int("num_groups"), ctx.attr_float("epsilon", 1e-5f), ctx.opset() >= 21));
      },
      "", 21);
  registry.add(
      "RMSNormalization",
      [](NodeContext& ctx) {
        ctx.wire(std::make_shared<ops::RmsNorm>(ctx.attr_int("axis", -1),
                                                ctx.attr_float("epsilon", 1e-5f)));
      },
      "", 23);
  registry.add(
      "LpNormalization",
      [](NodeContext& ctx) {
        ctx.wire(std::make_shared<ops::LpNorm>(ctx.attr_int("axis", -1), ctx.attr_int("p", 2)));
      },
      "", 22);
}

}  // namespace kiln::onnx_io
