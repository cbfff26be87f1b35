// OneHotEncoder (ai.onnx.ml 1): each element becomes a row of zeros with a one at its
// category's index (categories strings, or integers that numeric inputs are truncated to);
// unknown categories give zeros, or an error when `zeros` is 0.
#pragma once

#include <map>
#include <unordered_map>

#include "core/op.h"

namespace kiln::ops::ml {

class OneHotEncoder : public Op {
 public:
  OneHotEncoder(std::vector<int64_t> ints, std::vector<std::string> strings, bool zeros);
  std::string name() const override { return "OneHotEncoder"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const OneHotEncoder& o) {
      return std::tie(o.ints_, o.strings_, o.use_strings_, o.zeros_);
    });
  }
  Attributes attributes() const override { return {{"categories", std::to_string(count_)}}; }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  std::map<int64_t, int64_t> ints_;
  std::unordered_map<std::string, int64_t> strings_;
  bool use_strings_;
  bool zeros_;
  int64_t count_;
};

}  // namespace kiln::ops::ml
