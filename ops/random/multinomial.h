// Multinomial: for each batch row of unnormalized log-probabilities [batch, classes],
// `sample_size` class indices drawn with probabilities softmax(row), as i32 (default) or i64.
// Seeded draws repeat from evaluation to evaluation (see RandomTensor).
#pragma once

#include <optional>

#include "core/op.h"

namespace kiln::ops {

class Multinomial : public Op {
 public:
  Multinomial(int64_t sample_size, DatumType dtype, std::optional<float> seed)
      : sample_size_(sample_size), dtype_(dtype), seed_(seed) {}
  std::string name() const override { return "Multinomial"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }
  bool is_deterministic() const override { return false; }

 private:
  int64_t sample_size_;
  DatumType dtype_;
  std::optional<float> seed_;
};

}  // namespace kiln::ops
