// RotaryEmbedding (opset 23): rotates pairs of each head's first rotary_embedding_dim values by
// the position's angle, given as cos / sin caches: pairs are the two halves (default) or
// neighbours (interleaved). Inputs 4-D [batch, heads, seq, head_size] or 3-D [batch, seq,
// heads * head_size] (num_heads given); caches [max_position, rot/2] indexed by position_ids,
// or [batch, seq, rot/2] without them.
#pragma once

#include "core/op.h"

namespace kiln::ops {

class RotaryEmbedding : public Op {
 public:
  RotaryEmbedding(bool interleaved, int64_t rotary_dim, int64_t num_heads)
      : interleaved_(interleaved), rotary_dim_(rotary_dim), num_heads_(num_heads) {}
  std::string name() const override { return "RotaryEmbedding"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const RotaryEmbedding& o) {
      return std::tie(o.interleaved_, o.rotary_dim_, o.num_heads_);
    });
  }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override {
    Cost c;
    c.fma = required(inputs, 0, name()).volume();
    return c;
  }

 private:
  bool interleaved_;
  int64_t rotary_dim_;  // 0: the whole head
  int64_t num_heads_;   // 3-D inputs
};

}  // namespace kiln::ops
