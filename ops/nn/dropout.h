// Dropout. In inference (the default) the output is the input and the optional mask is all
// true. With training_mode true and a non-zero ratio, elements are zeroed at random and the
// others scaled by 1 / (1 - ratio).
#pragma once

#include <optional>

#include "core/op.h"

namespace kiln::ops {

class Dropout : public Op {
 public:
  // `ratio`: the attribute of old opsets (the ratio input wins when present). `mask_type`:
  // Bool from opset 10, the data type before. `may_train`: the node has a training_mode input.
  Dropout(float ratio, std::optional<int64_t> seed, bool mask_bool, bool may_train)
      : ratio_(ratio), seed_(seed), mask_bool_(mask_bool), may_train_(may_train) {}
  std::string name() const override { return "Dropout"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }
  bool is_deterministic() const override { return !may_train_; }

 private:
  float ratio_;
  std::optional<int64_t> seed_;
  bool mask_bool_;
  bool may_train_;
};

}  // namespace kiln::ops
