// ONNX translators for the text ops: StringNormalizer, TfIdfVectorizer, StringConcat,
// StringSplit and RegexFullMatch (opset 20).
#include "base/error.h"
#include "io/onnx/ops/register_all.h"
#include "ops/text/regex_full_match.h"
#include "ops/text/string_concat.h"
#include "ops/text/string_normalizer.h"
#include "ops/text/string_split.h"
#include "ops/text/tfidf_vectorizer.h"

namespace kiln::onnx_io {

void register_text_ops(OpRegistry& registry) {
  registry.add(
      "StringConcat", [](NodeContext& ctx) { ctx.wire(std::make_shared<ops::StringConcat>()); }, "",
      20);
  registry.add(
      "StringSplit",
      [](NodeContext& ctx) {
        std::optional<int64_t> maxsplit;
        if (ctx.has_attr("maxsplit")) maxsplit = ctx.attr_int("maxsplit");
        ctx.wire(std::make_shared<ops::StringSplit>(ctx.attr_string("delimiter", ""), maxsplit));
      },
      "", 20);
  registry.add(
      "RegexFullMatch",
      [](NodeContext& ctx) {
        ctx.wire(std::make_shared<ops::RegexFullMatch>(ctx.attr_string("pattern")));
      },
      "", 20);
  registry.add("StringNormalizer", [](NodeContext& ctx) {
    std::string action = ctx.attr_string("case_change_action", "NONE");
    ops::CaseChange change = ops::CaseChange::None;
    if (action == "LOWER")
      change = ops::CaseChange::Lower;
    else if (action == "UPPER")
      change = ops::CaseChange::Upper;
    else
      KILN_ENSURE(action == "NONE", "unknown case_change_action '{}'", action);
    ctx.wire(std::make_shared<ops::StringNormalizer>(
        change, ctx.attr_int("is_case_sensitive", 0) != 0,
        ctx.attr_strings("stopwords", std::vector<std::string>{})));
  });
  registry.add("TfIdfVectorizer", [](NodeContext& ctx) {
    ops::TfIdfVectorizer::Config c;
    c.min_gram_length = ctx.attr_int("min_gram_length");
    c.max_gram_length = ctx.attr_int("max_gram_length");
    c.max_skip_count = ctx.attr_int("max_skip_count");
    std::string mode = ctx.attr_string("mode");
    if (mode == "TF")
      c.mode = ops::TfIdfMode::Tf;
    else if (mode == "IDF")
      c.mode = ops::TfIdfMode::Idf;
    else if (mode == "TFIDF")
      c.mode = ops::TfIdfMode::TfIdf;
    else
      fail("unknown TfIdfVectorizer mode '{}'", mode);
    c.ngram_counts = ctx.attr_ints("ngram_counts");
    c.ngram_indexes = ctx.attr_ints("ngram_indexes");
    c.pool_int64s = ctx.attr_ints("pool_int64s", std::vector<int64_t>{});
    c.pool_strings = ctx.attr_strings("pool_strings", std::vector<std::string>{});
    c.weights = ctx.attr_floats("weights", std::vector<float>{});
    ctx.wire(std::make_shared<ops::TfIdfVectorizer>(std::move(c)));
  });
}

}  // namespace kiln::onnx_io
