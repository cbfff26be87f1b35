// ONNX translators for the ai.onnx.preview.training optimizers (inference engines meet them in
// the backend suite; they are plain element-wise updates).
#include "base/error.h"
#include "io/onnx/ops/register_all.h"
#include "ops/training/optimizer.h"

namespace kiln::onnx_io {

void register_training_ops(OpRegistry& registry) {
  const std::string domain = "ai.onnx.preview.training";
  registry.add(
      "Adagrad",
      [](NodeContext& ctx) {
        ops::OptimizerConfig c;
        c.kind = ops::OptimizerKind::Adagrad;
        c.decay_factor = ctx.attr_float("decay_factor", 0.0f);
        c.epsilon = ctx.attr_float("epsilon", 1e-6f);
        c.norm_coefficient = ctx.attr_float("norm_coefficient", 0.0f);
        ctx.wire(std::make_shared<ops::Optimizer>(c));
      },
      domain);
  registry.add(
      "Momentum",
      [](NodeContext& ctx) {
        ops::OptimizerConfig c;
        std::string mode = ctx.attr_string("mode");
        KILN_ENSURE(mode == "standard" || mode == "nesterov", "unknown Momentum mode '{}'", mode);
        c.kind = mode == "standard" ? ops::OptimizerKind::Momentum : ops::OptimizerKind::Nesterov;
        c.alpha = ctx.attr_float("alpha");
        c.beta = ctx.attr_float("beta");
        c.norm_coefficient = ctx.attr_float("norm_coefficient");
        ctx.wire(std::make_shared<ops::Optimizer>(c));
      },
      domain);
  registry.add(
      "Adam",
      [](NodeContext& ctx) {
        ops::OptimizerConfig c;
        c.kind = ops::OptimizerKind::Adam;
        c.alpha = ctx.attr_float("alpha", 0.9f);
        c.beta = ctx.attr_float("beta", 0.999f);
        c.epsilon = ctx.attr_float("epsilon", 1e-6f);
        c.norm_coefficient = ctx.attr_float("norm_coefficient", 0.0f);
        c.norm_coefficient_post = ctx.attr_float("norm_coefficient_post", 0.0f);
        ctx.wire(std::make_shared<ops::Optimizer>(c));
      },
      domain);
}

}  // namespace kiln::onnx_io
