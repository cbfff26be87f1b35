// StringSplit (opset 20): splits each string at `delimiter` (at runs of whitespace, dropping
// leading and trailing whitespace, when the delimiter is empty or absent), at most `maxsplit`
// times. Outputs the pieces [..., max pieces] padded with empty strings, and the number of
// pieces of each string.
#pragma once

#include <optional>

#include "core/op.h"

namespace kiln::ops {

class StringSplit : public Op {
 public:
  StringSplit(std::string delimiter, std::optional<int64_t> maxsplit)
      : delimiter_(std::move(delimiter)), maxsplit_(maxsplit) {}
  std::string name() const override { return "StringSplit"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other,
                       [](const StringSplit& o) { return std::tie(o.delimiter_, o.maxsplit_); });
  }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

  // The pieces of one string.
  std::vector<std::string> split(const std::string& s) const;

 private:
  std::string delimiter_;
  std::optional<int64_t> maxsplit_;
};

}  // namespace kiln::ops
