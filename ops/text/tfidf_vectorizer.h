// TfIdfVectorizer: counts the n-grams of a pool (with skips) in integer or string sequences and
// weighs them (TF, IDF, TFIDF).
#pragma once

#include <map>
#include <set>
#include <vector>

#include "core/op.h"

namespace kiln::ops {

enum class TfIdfMode { Tf, Idf, TfIdf };

class TfIdfVectorizer : public Op {
 public:
  struct Config {
    int64_t min_gram_length = 1;
    int64_t max_gram_length = 1;
    int64_t max_skip_count = 0;
    TfIdfMode mode = TfIdfMode::Tf;
    std::vector<int64_t> ngram_counts;   // start of each n-gram length's block in the pool
    std::vector<int64_t> ngram_indexes;  // output column of each pool n-gram
    std::vector<int64_t> pool_int64s;
    std::vector<std::string> pool_strings;
    std::vector<float> weights;
  };
  explicit TfIdfVectorizer(Config config);
  std::string name() const override { return "TfIdfVectorizer"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  void count_bigrams(const int64_t* row, int64_t cols, int64_t max_skip, float* counts) const;

  Config config_;
  int64_t output_size_ = 0;
  // n-gram (as token ids: strings are mapped to ids first) -> output column
  std::map<std::vector<int64_t>, int64_t> grams_;
  std::set<int64_t> gram_lengths_;  // the lengths grams_ holds: no other length can match
  // per gram length: the first tokens of the pool's grams of that length, sorted, unique
  std::map<int64_t, std::vector<int64_t>> first_tokens_;
  std::map<std::string, int64_t> string_ids_;
};

}  // namespace kiln::ops
