// RegexFullMatch (opset 20): whether each string matches `pattern` as a whole, in RE2 syntax
// (Google's RE2 library, Debian libre2-dev: linear time, no backreferences). An invalid
// pattern is an error when the model loads.
#pragma once

#include <memory>

#include "core/op.h"

namespace re2 {
class RE2;
}

namespace kiln::ops {

class RegexFullMatch : public Op {
 public:
  explicit RegexFullMatch(const std::string& pattern);
  ~RegexFullMatch() override;
  std::string name() const override { return "RegexFullMatch"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const RegexFullMatch& o) { return std::tie(o.pattern_); });
  }
  Attributes attributes() const override { return {{"pattern", pattern_}}; }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override {
    Cost c;
    c.other = required(inputs, 0, name()).volume();
    return c;
  }

 private:
  std::string pattern_;
  std::unique_ptr<re2::RE2> regex_;
};

}  // namespace kiln::ops
