// ONNX translators for the recurrent op family: LSTM, GRU, RNN.
#include "io/onnx/ops/register_all.h"
#include "ops/recurrent/gru.h"
#include "ops/recurrent/lstm.h"
#include "ops/recurrent/rnn.h"

namespace kiln::onnx_io {

namespace {

ops::RecurrentConfig read_config(NodeContext& ctx) {
  ops::RecurrentConfig c;
  c.direction = ops::parse_rnn_direction(ctx.attr_string("direction", "forward"));
  if (ctx.has_attr("hidden_size")) c.hidden_size = ctx.attr_int("hidden_size");
  if (ctx.has_attr("activations"))
    c.activations = ops::Activation::from_onnx(ctx.attr_strings("activations"),
                                               ctx.attr_floats("activation_alpha", {{}}),
                                               ctx.attr_floats("activation_beta", {{}}));
  if (ctx.has_attr("clip")) c.clip = ctx.attr_float("clip");
  c.layout = ctx.attr_int("layout", 0);
  return c;
}

}  // namespace

void register_recurrent_ops(OpRegistry& registry) {
  registry.add("LSTM", [](NodeContext& ctx) {
    auto config = read_config(ctx);
    ctx.wire(std::make_shared<ops::Lstm>(std::move(config), ctx.attr_int("input_forget", 0) != 0));
  });
  registry.add("GRU", [](NodeContext& ctx) {
    auto config = read_config(ctx);
    ctx.wire(
        std::make_shared<ops::Gru>(std::move(config), ctx.attr_int("linear_before_reset", 0) != 0));
  });
  registry.add("RNN",
               [](NodeContext& ctx) { ctx.wire(std::make_shared<ops::Rnn>(read_config(ctx))); });
}

}  // namespace kiln::onnx_io
