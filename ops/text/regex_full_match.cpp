#include "ops/text/regex_full_match.h"

#include <re2/re2.h>

#include "base/error.h"

namespace kiln::ops {

RegexFullMatch::RegexFullMatch(const std::string& pattern) : pattern_(pattern) {
  RE2::Options options;
  options.set_log_errors(false);
  regex_ = std::make_unique<RE2>(pattern, options);
  KILN_ENSURE(regex_->ok(), "RegexFullMatch: invalid pattern '{}': {}", pattern, regex_->error());
}

RegexFullMatch::~RegexFullMatch() = default;

std::vector<Fact> RegexFullMatch::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(x.dt == DatumType::String, "RegexFullMatch: input must be strings, got {}",
              name_of(x.dt));
  return {Fact(DatumType::Bool, x.shape)};
}

void RegexFullMatch::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  KILN_ENSURE(x.dtype() == DatumType::String, "RegexFullMatch: input must be strings");
  Tensor& y = ctx.output(0, DatumType::Bool, x.shape());
  const std::string* xs = x.data<std::string>();
  bool* yd = y.data<bool>();
  for (int64_t i = 0; i < x.numel(); i++) yd[i] = RE2::FullMatch(xs[i], *regex_);
}

}  // namespace kiln::ops
