#include <gtest/gtest.h>

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
