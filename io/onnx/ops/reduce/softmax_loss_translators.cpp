#include <optional>

#include "io/onnx/ops/reduce/reduce_translators.h"
#include "ops/nn/nll_loss.h"
#include "ops/nn/softmax.h"
#include "ops/nn/softmax_cross_entropy_loss.h"

namespace kiln::onnx_io {

namespace {

std::optional<int64_t> ignore_index(const NodeContext& ctx) {
  if (!ctx.has_attr("ignore_index")) return std::nullopt;
  return ctx.attr_int("ignore_index");
}

}  // namespace

void register_softmax_loss_translators(OpRegistry& registry) {
  using ops::SoftmaxKind;
  for (auto [op_type, kind] : {std::pair{"Softmax", SoftmaxKind::Softmax},
                               std::pair{"LogSoftmax", SoftmaxKind::LogSoftmax},
                               std::pair{"Hardmax", SoftmaxKind::Hardmax}}) {
    registry.add(op_type, [kind = kind](NodeContext& ctx) {
      bool legacy = ctx.opset() < 13;
      int64_t axis = ctx.attr_int("axis", legacy ? 1 : -1);
      ctx.wire(std::make_shared<ops::Softmax>(kind, axis, legacy));
    });
  }
  registry.add("NegativeLogLikelihoodLoss", [](NodeContext& ctx) {
    auto reduction = ops::parse_loss_reduction(ctx.attr_string("reduction", "mean"));
    ctx.wire(std::make_shared<ops::NllLoss>(reduction, ignore_index(ctx)));
  });
  registry.add("SoftmaxCrossEntropyLoss", [](NodeContext& ctx) {
    auto reduction = ops::parse_loss_reduction(ctx.attr_string("reduction", "mean"));
    ctx.wire(std::make_shared<ops::SoftmaxCrossEntropyLoss>(reduction, ignore_index(ctx)));
  });
}

}  // namespace kiln::onnx_io
