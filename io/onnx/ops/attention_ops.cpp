// ONNX translators for the transformer ops of opsets 23-25: Attention (23, 24, 25) and
// RotaryEmbedding (23).
#include "io/onnx/ops/register_all.h"
#include "ops/nn/attention.h"
#include "ops/nn/rotary_embedding.h"

namespace kiln::onnx_io {

void register_attention_ops(OpRegistry& registry) {
  registry.add(
      "Attention",
      [](NodeContext& ctx) {
        ops::AttentionOptions o;
        o.is_causal = ctx.attr_int("is_causal", 0) != 0;
        o.q_num_heads = ctx.attr_int("q_num_heads", 0);
        o.kv_num_heads = ctx.attr_int("kv_num_heads", 0);
        o.qk_output_mode = ctx.attr_int("qk_matmul_output_mode", 0);
        KILN_ENSURE(o.qk_output_mode >= 0 && o.qk_output_mode <= 3,
                    "Attention: qk_matmul_output_mode must be 0..3, got {}", o.qk_output_mode);
        if (ctx.has_attr("scale")) o.scale = ctx.attr_float("scale");
        o.softcap = ctx.attr_float("softcap", 0.0f);
        if (ctx.has_attr("softmax_precision")) {
          int64_t p = ctx.attr_int("softmax_precision");
          KILN_ENSURE(p == 1 || p == 10 || p == 11 || p == 16,
                      "Attention: softmax_precision must be 1, 10, 11 or 16, got {}", p);
        }
        // Windows exist from opset 25 on.
        o.left_window = ctx.opset() >= 25 ? ctx.attr_int("left_window_size", -1) : -1;
        o.right_window = ctx.opset() >= 25 ? ctx.attr_int("right_window_size", -1) : -1;
        KILN_ENSURE(ctx.opset() >= 24 || !ctx.has_input(6),
                    "Attention: nonpad_kv_seqlen needs opset 24");
        KILN_ENSURE(ctx.num_outputs() <= 4, "Attention: {} outputs, at most 4", ctx.num_outputs());
        ctx.wire(std::make_shared<ops::Attention>(o));
      },
      "", 25);
  registry.add(
      "RotaryEmbedding",
      [](NodeContext& ctx) {
        ctx.wire(std::make_shared<ops::RotaryEmbedding>(ctx.attr_int("interleaved", 0) != 0,
                                                        ctx.attr_int("rotary_embedding_dim", 0),
                                                        ctx.attr_int("num_heads", 0)));
      },
      "", 23);
}

}  // namespace kiln::onnx_io
