// StringNormalizer: removes stop words and changes case of a [C] or [1, C] string tensor.
// Case changes are ASCII-only (no dependency on system locales); other bytes pass unchanged.
#pragma once

#include <set>

#include "core/op.h"

namespace kiln::ops {

enum class CaseChange { None, Lower, Upper };

class StringNormalizer : public Op {
 public:
  StringNormalizer(CaseChange change, bool case_sensitive, std::vector<std::string> stopwords);
  std::string name() const override { return "StringNormalizer"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  bool is_stopword(const std::string& word) const;
  CaseChange change_;
  bool case_sensitive_;
  std::set<std::string> stopwords_;  // lower-cased when not case sensitive
};

}  // namespace kiln::ops
