// Attention (opsets 23, 24, 25): scaled dot-product attention over 4-D [batch, heads, seq,
// head_size] or 3-D [batch, seq, heads * head_size] inputs, with grouped / multi-query heads
// (q_num_heads a multiple of kv_num_heads), past and present key / value caches, a boolean or
// additive mask (its last axis may be shorter than the keys: the rest is masked), causal
// masking aligned to the bottom right (offset = past length, or nonpad_kv_seqlen - q length),
// nonpad_kv_seqlen key padding (24), sliding windows (25), softcap, and the qk_matmul_output
// of every mode. A query row with every key masked gives zeros. Computed in float (double for
// f64 inputs).
#pragma once

#include <optional>

#include "core/op.h"

namespace kiln::ops {

struct AttentionOptions {
  bool is_causal = false;
  int64_t q_num_heads = 0;  // 3-D inputs only
  int64_t kv_num_heads = 0;
  int64_t qk_output_mode = 0;
  std::optional<float> scale;  // default 1 / sqrt(head_size)
  float softcap = 0.0f;
  int64_t left_window = -1;  // -1: unbounded
  int64_t right_window = -1;
  bool operator==(const AttentionOptions&) const = default;
};

class Attention : public Op {
 public:
  explicit Attention(AttentionOptions options) : o_(options) {}
  std::string name() const override { return "Attention"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const Attention& o) { return std::tie(o.o_); });
  }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;
  const AttentionOptions& options() const { return o_; }

 private:
  AttentionOptions o_;
};

}  // namespace kiln::ops
