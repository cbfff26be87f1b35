#include <gtest/gtest.h>

#include "ops/nn/global_pool.h"
#include "ops/nn/pool.h"
#include "tests/ops/nn/nn_test_util.h"

namespace kiln {
namespace {

using kiln::testing::arange_f;
using kiln::testing::expect_close;
using kiln::testing::fact_refs;
using kiln::testing::run_op;
using ops::AutoPad;
using ops::Pool;
using ops::PoolKind;
using ops::WindowGeometry;

WindowGeometry geo(std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> pads = {}) {
  WindowGeometry g;
  g.kernel = std::move(k);
  g.strides = std::move(s);
  g.pads = std::move(pads);
  return g;
}

TEST(NnPoolGeometry, SymbolicAndConcreteSizes) {
  WindowGeometry g = geo({3}, {2}, {1, 1}).complete(1, "t");
  EXPECT_EQ(g.output_dims({Dim::parse("S")}, "t")[0], Dim::parse("(S-1)/2+1"));
  EXPECT_EQ(g.output_dims({Dim(7)}, "t")[0], Dim(4));
  g.auto_pad = AutoPad::SameLower;
  EXPECT_EQ(g.output_dims({Dim::parse("S")}, "t")[0], Dim::parse("(S+1)/2"));
  // SAME_LOWER puts the odd padding first: in 6, k 3, s 2 -> out 3, total pad 1.
  EXPECT_EQ(g.resolve({6}, "t").pad_begin[0], 1);
  g.auto_pad = AutoPad::SameUpper;
  EXPECT_EQ(g.resolve({6}, "t").pad_begin[0], 0);
  // ceil_mode: a last window starting in the padding is dropped.
  WindowGeometry c = geo({2}, {2}, {0, 1}).complete(1, "t");
  c.ceil_mode = true;
  EXPECT_EQ(c.resolve({4}, "t").output[0], 2);
  EXPECT_EQ(c.resolve({5}, "t").output[0], 3);
  EXPECT_THROW(geo({3}, {0}).complete(1, "t"), Error);
  EXPECT_THROW(geo({3}, {1}).complete(2, "t"), Error);
  // A declared input size of 2^63-1 plus a pad overflowed int64 (fuzz finding 23): refused.
  WindowGeometry p = geo({3}, {1}, {0, 1}).complete(1, "t");
  EXPECT_EQ(p.resolve({int64_t{1} << 62}, "t").output[0], (int64_t{1} << 62) - 1);
  EXPECT_THROW(p.resolve({INT64_MAX}, "t"), Error);
  p.auto_pad = AutoPad::SameUpper;
  EXPECT_THROW(p.resolve({INT64_MAX}, "t"), Error);
}

TEST(NnPool, MaxPoolWithIndicesBothOrders) {
  // 1x1x3x4 input; 2x2 window, stride 2, ceil_mode -> 2x2 output.
  std::vector<float> v = {1, 9, 2, 3, 4, 5, 8, 7, 6, 0, 11, 10};
  Tensor x = Tensor::from_vector<float>({1, 1, 3, 4}, v);
  WindowGeometry g = geo({2, 2}, {2, 2});
  g.ceil_mode = true;
  Pool row(PoolKind::Max, g, {});
  auto y = run_op(row, {x}, 2);
  EXPECT_EQ(y[0].shape(), Shape({1, 1, 2, 2}));
  expect_close(y[0], {9, 8, 6, 11});
  EXPECT_EQ(y[1].to_i64_vector(), (std::vector<int64_t>{1, 6, 8, 10}));
  Pool::Options col;
  col.storage_order = 1;
  auto yc = run_op(Pool(PoolKind::Max, g, col), {x}, 2);
  // Column-major index: h + w * H.
  EXPECT_EQ(yc[1].to_i64_vector(), (std::vector<int64_t>{3, 7, 2, 8}));
}

TEST(NnPool, MaxPoolUint8AndDilation) {
  Tensor x = Tensor::from_vector<uint8_t>({1, 1, 6}, {3, 200, 1, 7, 250, 4});
  WindowGeometry g = geo({2}, {1});
  g.dilations = {3};
  auto y = run_op(Pool(PoolKind::Max, g, {}), {x});
  EXPECT_EQ(y[0].dtype(), DatumType::U8);
  EXPECT_EQ(y[0].to_i64_vector(), (std::vector<int64_t>{7, 250, 4}));
}

TEST(NnPool, AveragePoolPadding) {
  Tensor x = Tensor::from_vector<float>({1, 1, 4}, {1, 2, 3, 4});
  WindowGeometry g = geo({3}, {2}, {1, 1});
  auto excl = run_op(Pool(PoolKind::Average, g, {}), {x});
  // Windows [-1..1], [1..3]: pads are not counted.
  expect_close(excl[0], {1.5f, 3.0f});
  Pool::Options inc;
  inc.count_include_pad = true;
  auto incl = run_op(Pool(PoolKind::Average, g, inc), {x});
  expect_close(incl[0], {1.0f, 3.0f});
  // Ceil mode adds a window [2..4] that spills past the input (no end padding): only the
  // padded input counts, so its divisor is 2.
  WindowGeometry c = geo({3}, {2});
  c.ceil_mode = true;
  expect_close(run_op(Pool(PoolKind::Average, c, inc), {x})[0], {2.0f, 3.5f});
}

TEST(NnPool, LpPoolAndSymbolicFacts) {
  Pool::Options o;
  o.p = 2;
  Tensor x = Tensor::from_vector<float>({1, 1, 4}, {3, 4, -6, 8});
  auto y = run_op(Pool(PoolKind::Lp, geo({2}, {2}), o), {x});
  expect_close(y[0], {5, 10});
  Pool p(PoolKind::Max, geo({2, 2}, {2, 2}), {});
  std::vector<Fact> in = {Fact::parse("N,3,H,W")};
  auto facts = p.output_facts(fact_refs(in));
  ASSERT_EQ(facts.size(), 2u);
  EXPECT_EQ(facts[0].shape[2], Dim::parse("(H-2)/2+1"));
  EXPECT_EQ(facts[1].dt, DatumType::I64);
  std::vector<Fact> bad = {Fact::parse("1,3,4,4,i32")};
  EXPECT_THROW(Pool(PoolKind::Average, geo({2, 2}, {2, 2}), {}).output_facts(fact_refs(bad)),
               Error);
  std::vector<Fact> bad_rank = {Fact::parse("1,3,4")};
  EXPECT_THROW(p.output_facts(fact_refs(bad_rank)), Error);
}

TEST(NnGlobalPool, AverageMaxLp) {
  Tensor x = Tensor::from_vector<float>({1, 2, 2, 2}, {1, 2, 3, 6, -1, -5, 3, 1});
  expect_close(run_op(ops::GlobalPool(PoolKind::Average), {x})[0], {3, -0.5f});
  expect_close(run_op(ops::GlobalPool(PoolKind::Max), {x})[0], {6, 3});
  expect_close(run_op(ops::GlobalPool(PoolKind::Lp, 1), {x})[0], {12, 10});
  std::vector<Fact> in = {Fact::parse("N,C,S,f64")};
  auto f = ops::GlobalPool(PoolKind::Average).output_facts(fact_refs(in));
  EXPECT_EQ(f[0].to_string(), "N,C,1,f64");
  Tensor empty(DatumType::F32, {0, 3, 4});
  EXPECT_EQ(run_op(ops::GlobalPool(PoolKind::Max), {empty})[0].shape(), Shape({0, 3, 1}));
}

}  // namespace
}  // namespace kiln
