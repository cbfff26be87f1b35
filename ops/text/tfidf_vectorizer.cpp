#include "ops/text/tfidf_vectorizer.h"

#include <algorithm>

#include "base/error.h"

namespace kiln::ops {

TfIdfVectorizer::TfIdfVectorizer(Config config) : config_(std::move(config)) {
  auto& c = config_;
  KILN_ENSURE(c.min_gram_length >= 1 && c.max_gram_length >= c.min_gram_length,
              "TfIdfVectorizer: bad gram lengths [{}, {}]", c.min_gram_length, c.max_gram_length);
  KILN_ENSURE(c.max_skip_count >= 0, "TfIdfVectorizer: negative max_skip_count");
  bool strings = !c.pool_strings.empty();
  KILN_ENSURE(
      strings != !c.pool_int64s.empty() || (c.pool_strings.empty() && c.pool_int64s.empty()),
      "TfIdfVectorizer: give pool_int64s or pool_strings, not both");
  std::vector<int64_t> pool = c.pool_int64s;
  if (strings)
    for (const auto& s : c.pool_strings) {
      auto [it, _] = string_ids_.emplace(s, static_cast<int64_t>(string_ids_.size()));
      pool.push_back(it->second);
    }
  int64_t pool_size = static_cast<int64_t>(pool.size());
  KILN_ENSURE(static_cast<int64_t>(c.ngram_counts.size()) <= c.max_gram_length,
              "TfIdfVectorizer: {} ngram_counts for max_gram_length {}", c.ngram_counts.size(),
              c.max_gram_length);
  size_t gram_index = 0;
  for (size_t len_index = 0; len_index < c.ngram_counts.size(); len_index++) {
    int64_t n = static_cast<int64_t>(len_index) + 1;
    int64_t start = c.ngram_counts[len_index];
    int64_t end = len_index + 1 < c.ngram_counts.size() ? c.ngram_counts[len_index + 1] : pool_size;
    KILN_ENSURE(start >= 0 && start <= end && end <= pool_size && (end - start) % n == 0,
                "TfIdfVectorizer: inconsistent ngram_counts for {}-grams", n);
    for (int64_t p = start; p < end; p += n, gram_index++) {
      KILN_ENSURE(gram_index < c.ngram_indexes.size(), "TfIdfVectorizer: too few ngram_indexes");
      int64_t column = c.ngram_indexes[gram_index];
      KILN_ENSURE(column >= 0 && column < (1 << 24), "TfIdfVectorizer: bad ngram index {}", column);
      grams_[std::vector<int64_t>(pool.begin() + p, pool.begin() + p + n)] = column;
      gram_lengths_.insert(n);
      output_size_ = std::max(output_size_, column + 1);
    }
  }
  for (const auto& [gram, column] : grams_)
    first_tokens_[static_cast<int64_t>(gram.size())].push_back(gram[0]);
  for (auto& [n, firsts] : first_tokens_)
    firsts.erase(std::unique(firsts.begin(), firsts.end()), firsts.end());  // grams_ is sorted
  KILN_ENSURE(c.weights.empty() || c.weights.size() >= static_cast<size_t>(output_size_) ||
                  c.weights.size() == c.ngram_indexes.size(),
              "TfIdfVectorizer: {} weights for {} outputs", c.weights.size(), output_size_);
}

Attributes TfIdfVectorizer::attributes() const {
  const char* mode = config_.mode == TfIdfMode::Tf    ? "TF"
                     : config_.mode == TfIdfMode::Idf ? "IDF"
                                                      : "TFIDF";
  return {{"mode", mode},
          {"grams", std::to_string(config_.min_gram_length) + ".." +
                        std::to_string(config_.max_gram_length)},
          {"max_skip_count", std::to_string(config_.max_skip_count)}};
}

std::vector<Fact> TfIdfVectorizer::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  bool strings = !config_.pool_strings.empty();
  KILN_ENSURE(
      strings ? x.dt == DatumType::String : (x.dt == DatumType::I32 || x.dt == DatumType::I64),
      "TfIdfVectorizer: input type {} does not match the pool", name_of(x.dt));
  KILN_ENSURE(x.rank() == 1 || x.rank() == 2, "TfIdfVectorizer: input must be [C] or [N, C]");
  if (x.rank() == 1) return {Fact(DatumType::F32, {Dim(output_size_)})};
  return {Fact(DatumType::F32, {x.shape[0], Dim(output_size_)})};
}

// Bigrams (a, b) at skips 0..max_skip are the pairs i < j <= i + max_skip + 1 with row[i] = a
// and row[j] = b: counted from the positions of a and b with two pointers, in time linear in the
// row per bigram instead of row length x skips.
void TfIdfVectorizer::count_bigrams(const int64_t* row, int64_t cols, int64_t max_skip,
                                    float* counts) const {
  std::map<int64_t, std::vector<int64_t>> positions;
  for (const auto& [gram, column] : grams_)
    if (gram.size() == 2) positions[gram[0]], positions[gram[1]];
  for (int64_t i = 0; i < cols; i++) {
    auto it = positions.find(row[i]);
    if (it != positions.end()) it->second.push_back(i);
  }
  for (const auto& [gram, column] : grams_) {
    if (gram.size() != 2) continue;
    const auto& pa = positions[gram[0]];
    const auto& pb = positions[gram[1]];
    size_t lo = 0, hi = 0;
    int64_t pairs = 0;
    for (int64_t i : pa) {
      while (lo < pb.size() && pb[lo] <= i) lo++;
      hi = std::max(hi, lo);
      while (hi < pb.size() && pb[hi] - i <= max_skip + 1) hi++;
      pairs += static_cast<int64_t>(hi - lo);
    }
    counts[column] += static_cast<float>(pairs);
  }
}

void TfIdfVectorizer::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  int64_t rows = x.rank() == 2 ? x.dim(0) : 1;
  int64_t cols = x.rank() == 2 ? x.dim(1) : (x.rank() == 1 ? x.dim(0) : 0);
  std::vector<int64_t> tokens(static_cast<size_t>(x.numel()));
  for (int64_t i = 0; i < x.numel(); i++) {
    if (x.dtype() == DatumType::String) {
      auto it = string_ids_.find(x.data<std::string>()[i]);
      tokens[i] = it == string_ids_.end() ? -1 : it->second;
    } else {
      tokens[i] = x.value_as_i64(i);
    }
  }
  Tensor& y = ctx.output(0, DatumType::F32,
                         x.rank() == 2 ? Shape{rows, output_size_} : Shape{output_size_});
  float* out = y.data<float>();
  std::fill(out, out + y.numel(), 0.0f);
  std::vector<int64_t> gram;
  for (int64_t r = 0; r < rows; r++) {
    const int64_t* row = tokens.data() + r * cols;
    float* counts = out + r * output_size_;
    // Only the pool's gram lengths can match; skips that put an n-gram past the row's end find
    // nothing: the loops stop there (hostile max_gram_length / max_skip_count of 2^32 or more
    // looped for seconds to minutes).
    for (int64_t n : gram_lengths_) {
      if (n < config_.min_gram_length || n > config_.max_gram_length) continue;
      // A unigram is the same whatever the skip: count it once.
      int64_t max_skip = n == 1 ? 0 : std::min<int64_t>(config_.max_skip_count, cols);
      // Only positions holding a first token of one of the pool's n-grams can start a match:
      // the others are passed over once, not once per skip (the candidates are
      // cols * (max_skip + 1); a long row with a large max_skip_count took seconds).
      if (n == 2) {
        count_bigrams(row, cols, max_skip, counts);
        continue;
      }
      const auto& firsts = first_tokens_.at(n);
      for (int64_t start = 0; start < cols; start++) {
        if (!std::binary_search(firsts.begin(), firsts.end(), row[start])) continue;
        for (int64_t skip = 0; skip <= max_skip && start + (n - 1) * (skip + 1) < cols; skip++) {
          gram.clear();
          for (int64_t k = 0; k < n; k++) gram.push_back(row[start + k * (skip + 1)]);
          auto it = grams_.find(gram);
          if (it != grams_.end()) counts[it->second] += 1.0f;
        }
      }
    }
    for (int64_t j = 0; j < output_size_; j++) {
      float w = j < static_cast<int64_t>(config_.weights.size()) ? config_.weights[j] : 1.0f;
      switch (config_.mode) {
        case TfIdfMode::Tf:
          break;
        case TfIdfMode::Idf:
          counts[j] = counts[j] > 0 ? w : 0.0f;
          break;
        case TfIdfMode::TfIdf:
          counts[j] *= w;
          break;
      }
    }
  }
}

}  // namespace kiln::ops
