#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "base/error.h"
#include "ops/text/string_normalizer.h"
#include "ops/text/tfidf_vectorizer.h"

using namespace kiln;

namespace {
Tensor eval1(const Op& op, const Tensor& x) {
  std::vector<Tensor> outs(1);
  EvalContext ctx(outs);
  op.eval(ctx, {&x});
  return outs[0];
}
}  // namespace

TEST(StringNormalizer, CaseInsensitiveStopwordsAndLower) {
  ops::StringNormalizer op(ops::CaseChange::Lower, false, {"The", "a"});
  auto y = eval1(op, Tensor::from_vector<std::string>({5}, {"THE", "Quick", "a", "Fox", "the"}));
  EXPECT_TRUE(y.equals(Tensor::from_vector<std::string>({2}, {"quick", "fox"})));
  Fact f(DatumType::String, {Dim(1), Dim(5)});
  EXPECT_EQ(op.output_facts({&f})[0].rank(), 2u);
  Fact bad(DatumType::String, {Dim(2), Dim(5)});
  EXPECT_THROW(op.output_facts({&bad}), Error);
}

TEST(StringNormalizer, EverythingRemovedGivesOneEmptyString) {
  ops::StringNormalizer op(ops::CaseChange::None, true, {"x"});
  auto y = eval1(op, Tensor::from_vector<std::string>({1, 2}, {"x", "x"}));
  EXPECT_TRUE(y.equals(Tensor::from_vector<std::string>({1, 1}, {""})));
}

TEST(TfIdfVectorizer, StringPoolWithTfIdfWeights) {
  ops::TfIdfVectorizer::Config c;
  c.min_gram_length = 1;
  c.max_gram_length = 2;
  c.max_skip_count = 1;
  c.mode = ops::TfIdfMode::TfIdf;
  c.ngram_counts = {0, 2};
  c.pool_strings = {"a", "b", "a", "c"};  // unigrams a, b; bigram (a, c)
  c.ngram_indexes = {0, 1, 2};
  c.weights = {1.0f, 2.0f, 10.0f};
  ops::TfIdfVectorizer op(c);
  // a b c a: a x2, b x1, (a,c) with skip 1 (a _ c) once
  auto y = eval1(op, Tensor::from_vector<std::string>({4}, {"a", "b", "c", "a"}));
  EXPECT_EQ(y.shape(), (Shape{3}));
  EXPECT_FLOAT_EQ(y.values<float>()[0], 2.0f);
  EXPECT_FLOAT_EQ(y.values<float>()[1], 2.0f);
  EXPECT_FLOAT_EQ(y.values<float>()[2], 10.0f);
}

TEST(TfIdfVectorizer, IdfModeAndBadConfig) {
  ops::TfIdfVectorizer::Config c;
  c.mode = ops::TfIdfMode::Idf;
  c.ngram_counts = {0};
  c.pool_int64s = {7, 9};
  c.ngram_indexes = {1, 0};
  c.weights = {0.5f, 0.25f};
  ops::TfIdfVectorizer op(c);
  auto y = eval1(op, Tensor::from_vector<int64_t>({2, 3}, {7, 7, 7, 9, 1, 1}));
  std::vector<float> expected = {0.0f, 0.25f, 0.5f, 0.0f};
  for (size_t i = 0; i < 4; i++) EXPECT_FLOAT_EQ(y.values<float>()[i], expected[i]) << i;
  c.ngram_counts = {0, 1};  // 1 element left for bigrams: inconsistent
  EXPECT_THROW(ops::TfIdfVectorizer{c}, Error);
}

// Random rows, pools of uni-, bi- and trigrams (duplicates and repeated tokens included), every
// skip count from 0 to past the row: the counts are the definition's, by brute force over every
// (start, skip) pair.
TEST(TfIdfVectorizer, CountsMatchTheDefinitionOnRandomRows) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 200; trial++) {
    ops::TfIdfVectorizer::Config c;
    c.min_gram_length = 1 + static_cast<int64_t>(rng() % 2);
    c.max_gram_length = 3;
    c.max_skip_count = static_cast<int64_t>(rng() % 6) + (trial % 10 == 0 ? 1000 : 0);
    c.mode = ops::TfIdfMode::Tf;
    std::vector<std::vector<int64_t>> grams;
    c.ngram_counts = {0};
    for (int64_t n = 1; n <= 3; n++) {
      if (n > 1) c.ngram_counts.push_back(static_cast<int64_t>(c.pool_int64s.size()));
      for (size_t g = 0, count = 1 + rng() % 3; g < count; g++) {
        std::vector<int64_t> gram;
        for (int64_t k = 0; k < n; k++) gram.push_back(static_cast<int64_t>(rng() % 4));
        bool seen = std::find(grams.begin(), grams.end(), gram) != grams.end();
        if (seen) continue;  // one column per distinct gram
        grams.push_back(gram);
        c.pool_int64s.insert(c.pool_int64s.end(), gram.begin(), gram.end());
      }
    }
    for (size_t g = 0; g < grams.size(); g++) c.ngram_indexes.push_back(static_cast<int64_t>(g));
    ops::TfIdfVectorizer op(c);
    int64_t cols = 1 + static_cast<int64_t>(rng() % 40);
    std::vector<int64_t> row(static_cast<size_t>(cols));
    for (auto& t : row) t = static_cast<int64_t>(rng() % 4);
    auto y = eval1(op, Tensor::from_vector<int64_t>({cols}, row));
    for (size_t g = 0; g < grams.size(); g++) {
      int64_t n = static_cast<int64_t>(grams[g].size());
      float want = 0;
      if (n >= c.min_gram_length)
        for (int64_t skip = 0; skip <= (n == 1 ? 0 : c.max_skip_count); skip++)
          for (int64_t start = 0; start + (n - 1) * (skip + 1) < cols; start++) {
            bool match = true;
            for (int64_t k = 0; k < n; k++)
              match = match && row[static_cast<size_t>(start + k * (skip + 1))] == grams[g][k];
            want += match ? 1.0f : 0.0f;
          }
      ASSERT_EQ(y.values<float>()[g], want) << "trial " << trial << " gram " << g;
    }
  }
}
