// Op::same_as (what cse merges) of the operators added for opsets 18-25: equal attributes
// compare equal, any differing attribute does not (Cast's saturate included), and the random
// generators never merge (two draws are two draws, seeded or not).
#include <gtest/gtest.h>

#include "ops/elementwise/cast.h"
#include "ops/nn/attention.h"
#include "ops/nn/group_norm.h"
#include "ops/nn/lp_norm.h"
#include "ops/nn/rms_norm.h"
#include "ops/nn/rotary_embedding.h"
#include "ops/random/random_tensor.h"
#include "ops/shape/tensor_scatter.h"
#include "ops/text/string_split.h"

namespace kiln {
namespace {

TEST(OpsetOpsSameAs, CastComparesSaturateAndType) {
  ops::CastOptions sat, nosat;
  nosat.saturate = false;
  EXPECT_TRUE(ops::Cast(DatumType::F8E4M3FN, sat).same_as(ops::Cast(DatumType::F8E4M3FN, sat)));
  EXPECT_FALSE(ops::Cast(DatumType::F8E4M3FN, sat).same_as(ops::Cast(DatumType::F8E4M3FN, nosat)));
  EXPECT_FALSE(ops::Cast(DatumType::F8E4M3FN, sat).same_as(ops::Cast(DatumType::F8E5M2, sat)));
  ops::CastOptions down = sat;
  down.e8m0_round = 1;
  EXPECT_FALSE(ops::Cast(DatumType::F8E8M0, sat).same_as(ops::Cast(DatumType::F8E8M0, down)));
}

TEST(OpsetOpsSameAs, AttentionComparesEveryOption) {
  ops::AttentionOptions a;
  a.q_num_heads = 4;
  a.kv_num_heads = 2;
  EXPECT_TRUE(ops::Attention(a).same_as(ops::Attention(a)));
  auto differs = [&](auto change) {
    ops::AttentionOptions b = a;
    change(b);
    return !ops::Attention(a).same_as(ops::Attention(b));
  };
  EXPECT_TRUE(differs([](auto& o) { o.is_causal = true; }));
  EXPECT_TRUE(differs([](auto& o) { o.kv_num_heads = 4; }));
  EXPECT_TRUE(differs([](auto& o) { o.scale = 0.5f; }));
  EXPECT_TRUE(differs([](auto& o) { o.softcap = 30.0f; }));
  EXPECT_TRUE(differs([](auto& o) { o.qk_output_mode = 1; }));
  EXPECT_TRUE(differs([](auto& o) { o.left_window = 2; }));
  EXPECT_TRUE(differs([](auto& o) { o.right_window = 0; }));
}

TEST(OpsetOpsSameAs, NormsAndRotary) {
  EXPECT_TRUE(ops::RmsNorm(-1, 1e-5f).same_as(ops::RmsNorm(-1, 1e-5f)));
  EXPECT_FALSE(ops::RmsNorm(-1, 1e-5f).same_as(ops::RmsNorm(-2, 1e-5f)));
  EXPECT_FALSE(ops::RmsNorm(-1, 1e-5f).same_as(ops::RmsNorm(-1, 1e-6f)));
  EXPECT_TRUE(ops::GroupNorm(2, 1e-5f, true).same_as(ops::GroupNorm(2, 1e-5f, true)));
  EXPECT_FALSE(ops::GroupNorm(2, 1e-5f, true).same_as(ops::GroupNorm(2, 1e-5f, false)));
  EXPECT_FALSE(ops::GroupNorm(2, 1e-5f, true).same_as(ops::GroupNorm(4, 1e-5f, true)));
  EXPECT_FALSE(ops::LpNorm(-1, 2).same_as(ops::LpNorm(-1, 1)));
  EXPECT_TRUE(ops::RotaryEmbedding(false, 0, 2).same_as(ops::RotaryEmbedding(false, 0, 2)));
  EXPECT_FALSE(ops::RotaryEmbedding(false, 0, 2).same_as(ops::RotaryEmbedding(true, 0, 2)));
  EXPECT_FALSE(ops::RotaryEmbedding(false, 0, 2).same_as(ops::RotaryEmbedding(false, 4, 2)));
  // Different op types never compare equal.
  EXPECT_FALSE(ops::RmsNorm(-1, 1e-5f).same_as(ops::LpNorm(-1, 2)));
}

TEST(OpsetOpsSameAs, ShapeAndTextOps) {
  EXPECT_TRUE(ops::TensorScatter(-2, true).same_as(ops::TensorScatter(-2, true)));
  EXPECT_FALSE(ops::TensorScatter(-2, true).same_as(ops::TensorScatter(-2, false)));
  EXPECT_TRUE(ops::StringSplit(",", 2).same_as(ops::StringSplit(",", 2)));
  EXPECT_FALSE(ops::StringSplit(",", 2).same_as(ops::StringSplit(",", std::nullopt)));
  EXPECT_FALSE(ops::StringSplit(",", 2).same_as(ops::StringSplit(";", 2)));
}

TEST(OpsetOpsSameAs, RandomGeneratorsNeverMerge) {
  ops::RandomOptions o;
  o.seed = 3.0f;
  o.shape = Shape{4};
  ops::RandomTensor a(o), b(o);
  EXPECT_FALSE(a.same_as(b));
  EXPECT_TRUE(a.same_as(a));
}

}  // namespace
}  // namespace kiln
