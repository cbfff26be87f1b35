#include "core/dim.h"

#include <gtest/gtest.h>

#include "core/error.h"

using kiln::Dim;

TEST(Dim, IntegersAndSymbols) {
  EXPECT_TRUE(Dim(3).is_int());
  EXPECT_EQ(Dim(3).to_int(), 3);
  Dim s = Dim::symbol("S");
  EXPECT_FALSE(s.is_int());
  EXPECT_EQ(s.to_string(), "S");
  EXPECT_THROW(s.to_int(), kiln::Error);
}

TEST(Dim, SimplifiesSumsAndProducts) {
  Dim s = Dim::symbol("S");
  EXPECT_EQ((s + Dim(1)).to_string(), "S+1");
  EXPECT_EQ((s * Dim(2)).to_string(), "2*S");
  EXPECT_EQ(s + s, s * Dim(2));
  EXPECT_EQ((s + Dim(1) - s).to_int(), 1);
  EXPECT_EQ((s * Dim::symbol("N")).to_string(), "N*S");
  EXPECT_EQ(s * Dim::symbol("N"), Dim::symbol("N") * s);
  EXPECT_EQ((s - Dim(1)).to_string(), "S-1");
}

TEST(Dim, FloorDivision) {
  Dim s = Dim::symbol("S");
  EXPECT_EQ((s * Dim(2)).div(2), s);
  EXPECT_EQ(s.div(2).to_string(), "S/2");
  EXPECT_EQ((s * Dim(2) + Dim(3)).div(2), s + Dim(1));
  EXPECT_EQ((s + Dim(1)).div(2).to_string(), "(S+1)/2");
  EXPECT_EQ(Dim(7).div(2).to_int(), 3);
  EXPECT_EQ(Dim(-7).div(2).to_int(), -4);
  EXPECT_EQ(s.div_ceil(2).eval({{"S", 5}}), 3);
}

TEST(Dim, EvalAndSubstitute) {
  Dim d = Dim::parse("2*S+N/2");
  EXPECT_EQ(d.eval({{"S", 10}, {"N", 5}}), 22);
  EXPECT_EQ(d.substitute({{"S", 1}}).to_string(), "N/2+2");
  EXPECT_THROW(d.eval({{"S", 1}}), kiln::Error);
  EXPECT_EQ(d.symbols(), (std::vector<std::string>{"N", "S"}));
}

TEST(Dim, Parse) {
  EXPECT_EQ(Dim::parse("3").to_int(), 3);
  EXPECT_EQ(Dim::parse("S + 1"), Dim::symbol("S") + Dim(1));
  EXPECT_EQ(Dim::parse("(S+1)/2"), (Dim::symbol("S") + Dim(1)).div(2));
  EXPECT_THROW(Dim::parse("S/"), kiln::Error);
  EXPECT_THROW(Dim::parse("S/T"), kiln::Error);
  EXPECT_THROW(Dim::parse("3$"), kiln::Error);
}
