// StringConcat, StringSplit and RegexFullMatch (opset 20).
#include <gtest/gtest.h>

#include "ops/text/regex_full_match.h"
#include "ops/text/string_concat.h"
#include "ops/text/string_split.h"
#include "tests/ops/nn/nn_test_util.h"

namespace kiln {
namespace {

using testing::run_op;

Tensor strings(Shape shape, std::vector<std::string> v) {
  return Tensor::from_vector<std::string>(std::move(shape), v);
}

std::vector<std::string> all(const Tensor& t) {
  auto s = t.values<std::string>();
  return {s.begin(), s.end()};
}

TEST(StringConcat, BroadcastsLikeArithmetic) {
  auto y =
      run_op(ops::StringConcat(), {strings({2, 1}, {"a", "b"}), strings({3}, {"1", "", "é"})})[0];
  EXPECT_EQ(y.shape(), (Shape{2, 3}));
  EXPECT_EQ(all(y), (std::vector<std::string>{"a1", "a", "aé", "b1", "b", "bé"}));
}

TEST(StringSplit, DelimiterWhitespaceAndMaxsplit) {
  Tensor x = strings({3}, {"a,b,,c", "", ",x"});
  auto out = run_op(ops::StringSplit(",", std::nullopt), {x}, 2);
  EXPECT_EQ(out[0].shape(), (Shape{3, 4}));
  EXPECT_EQ(all(out[0]),
            (std::vector<std::string>{"a", "b", "", "c", "", "", "", "", "", "x", "", ""}));
  EXPECT_EQ(out[1].values<int64_t>()[1], 0);  // "" has no pieces (as ONNX Runtime counts)
  auto limited = run_op(ops::StringSplit(",", 1), {x}, 2);
  EXPECT_EQ(all(limited[0])[1], "b,,c");
  ops::StringSplit ws("", std::nullopt);
  EXPECT_EQ(ws.split("  lots  of space "), (std::vector<std::string>{"lots", "of", "space"}));
  EXPECT_TRUE(ws.split("   ").empty());
  EXPECT_EQ(ops::StringSplit("", 1).split(" a b  c "), (std::vector<std::string>{"a", "b  c"}));
  EXPECT_EQ(ops::StringSplit("--", std::nullopt).split("a--b----"),
            (std::vector<std::string>{"a", "b", "", ""}));
}

TEST(RegexFullMatch, WholeStringMatchesInRe2Syntax) {
  Tensor x = strings({4}, {"www.google.com", "kiln.onnx", "a1b2", "ünïcode"});
  auto y = run_op(ops::RegexFullMatch(R"((\W|^)[\w.\-]{0,25}\.(com|org)(\W|$))"), {x})[0];
  EXPECT_EQ(y.values<bool>()[0], true);
  EXPECT_EQ(y.values<bool>()[1], false);
  auto d = run_op(ops::RegexFullMatch(R"([a-z]\d)"), {x})[0];
  EXPECT_EQ(d.values<bool>()[2], false);  // a partial match is not a full match
  auto u = run_op(ops::RegexFullMatch(R"(\p{L}+)"), {x})[0];
  EXPECT_EQ(u.values<bool>()[3], true);
  EXPECT_THROW(ops::RegexFullMatch("(unclosed"), Error);
  EXPECT_THROW(ops::RegexFullMatch(R"((a)\1)"), Error);  // no backreferences in RE2
}

}  // namespace
}  // namespace kiln
