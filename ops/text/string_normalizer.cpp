#include "ops/text/string_normalizer.h"

#include <algorithm>
#include <cctype>

#include "base/error.h"

namespace kiln::ops {

namespace {
std::string ascii_lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}
std::string ascii_upper(std::string s) {
  for (char& c : s)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return s;
}
}  // namespace

StringNormalizer::StringNormalizer(CaseChange change, bool case_sensitive,
                                   std::vector<std::string> stopwords)
    : change_(change), case_sensitive_(case_sensitive) {
  for (auto& w : stopwords) stopwords_.insert(case_sensitive_ ? w : ascii_lower(w));
}

Attributes StringNormalizer::attributes() const {
  const char* change = change_ == CaseChange::Lower   ? "LOWER"
                       : change_ == CaseChange::Upper ? "UPPER"
                                                      : "NONE";
  return {{"case_change_action", change},
          {"is_case_sensitive", case_sensitive_ ? "1" : "0"},
          {"stopwords", std::to_string(stopwords_.size())}};
}

bool StringNormalizer::is_stopword(const std::string& word) const {
  return stopwords_.count(case_sensitive_ ? word : ascii_lower(word)) > 0;
}

std::vector<Fact> StringNormalizer::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(x.dt == DatumType::String, "StringNormalizer: input must be strings, got {}",
              name_of(x.dt));
  KILN_ENSURE(x.rank() == 1 || (x.rank() == 2 && x.shape[0] == Dim(1)),
              "StringNormalizer: input must be [C] or [1, C], got [{}]", dims_to_string(x.shape));
  Dim c = stopwords_.empty() ? x.shape.back() : Dim::fresh();
  return {
      Fact(DatumType::String, x.rank() == 1 ? std::vector<Dim>{c} : std::vector<Dim>{Dim(1), c})};
}

void StringNormalizer::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  std::vector<std::string> kept;
  for (const auto& s : x.values<std::string>()) {
    if (is_stopword(s)) continue;
    kept.push_back(change_ == CaseChange::Lower   ? ascii_lower(s)
                   : change_ == CaseChange::Upper ? ascii_upper(s)
                                                  : s);
  }
  // An empty result is one empty string, as the spec asks.
  if (kept.empty()) kept.emplace_back();
  int64_t c = static_cast<int64_t>(kept.size());
  Tensor& y = ctx.output(0, DatumType::String, x.rank() == 1 ? Shape{c} : Shape{1, c});
  std::copy(kept.begin(), kept.end(), y.data<std::string>());
}

}  // namespace kiln::ops
