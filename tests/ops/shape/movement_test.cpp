// Reshape, Flatten, Transpose, Concat, Slice, Squeeze/Unsqueeze, Expand, Tile: values by hand.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "base/threading.h"
#include "ops/shape/concat.h"
#include "ops/shape/expand.h"
#include "ops/shape/flatten.h"
#include "ops/shape/reshape.h"
#include "ops/shape/slice.h"
#include "ops/shape/squeeze.h"
#include "ops/shape/tile.h"
#include "ops/shape/transpose.h"
#include "tests/ops/shape/test_util.h"

using namespace kiln;
using namespace kiln::test;
using V = std::vector<float>;

TEST(ShapeReshape, ZeroCopiesAndMinusOneInfers) {
  ops::Reshape op;
  Tensor x = iota({2, 3, 4});
  auto out = eval_op(op, {x, i64s({0, -1})});
  EXPECT_EQ(out[0].shape(), (Shape{2, 12}));
  EXPECT_TRUE(out[0].shares_storage_with(x));
  EXPECT_THROW(eval_op(op, {x, i64s({5, -1})}), Error);
  EXPECT_THROW(eval_op(op, {x, i64s({-1, -1})}), Error);
}

TEST(ShapeReshape, AllowZero) {
  ops::Reshape op(true);
  Tensor x(DatumType::F32, {0, 3});
  auto out = eval_op(op, {x, i64s({3, 0})});
  EXPECT_EQ(out[0].shape(), (Shape{3, 0}));
  auto f = facts_of(op, {Fact::parse("0,3,f32"), Fact::constant(i64s({3, 0}))});
  EXPECT_EQ(f[0].to_string(), "3,0,f32");
}

TEST(ShapeReshape, UnknownShapeGivesFreshDims) {
  ops::Reshape op;
  auto f = facts_of(op, {Fact::parse("2,S,f32"), Fact::parse("3,i64")});
  EXPECT_EQ(f[0].rank(), 3u);
  EXPECT_FALSE(f[0].shape[0].is_int());
}

TEST(ShapeFlatten, NegativeAxis) {
  ops::Flatten op(-1);
  auto f = facts_of(op, {Fact::parse("2,S,4,f32")});
  EXPECT_EQ(f[0].to_string(), "2*S,4,f32");
  EXPECT_EQ(eval_op(op, {iota({2, 3, 4})})[0].shape(), (Shape{6, 4}));
  EXPECT_EQ(eval_op(ops::Flatten(0), {iota({2, 3})})[0].shape(), (Shape{1, 6}));
}

TEST(ShapeTranspose, PermAndDefault) {
  Tensor x = iota({2, 3});
  auto out = eval_op(ops::Transpose(), {x});
  EXPECT_EQ(out[0].shape(), (Shape{3, 2}));
  EXPECT_EQ(values(out[0]), (V{0, 3, 1, 4, 2, 5}));
  ops::Transpose p(std::vector<int64_t>{1, 2, 0});
  auto o3 = eval_op(p, {iota({2, 1, 2})});  // [[[0,1]],[[2,3]]] -> shape 1,2,2
  EXPECT_EQ(o3[0].shape(), (Shape{1, 2, 2}));
  EXPECT_EQ(values(o3[0]), (V{0, 2, 1, 3}));
  EXPECT_EQ(facts_of(p, {Fact::parse("B,S,3,f32")})[0].to_string(), "S,3,B,f32");
  EXPECT_THROW(facts_of(ops::Transpose(std::vector<int64_t>{0, 0}), {Fact::parse("2,2")}), Error);
}

TEST(ShapeConcat, AxesAndSymbolic) {
  ops::Concat op(-1);
  auto out = eval_op(op, {iota({2, 1}), f32s({2, 2}, {10, 11, 12, 13})});
  EXPECT_EQ(values(out[0]), (V{0, 10, 11, 1, 12, 13}));
  auto f = facts_of(op, {Fact::parse("2,S,f32"), Fact::parse("2,3,f32")});
  EXPECT_EQ(f[0].to_string(), "2,S+3,f32");
  EXPECT_THROW(facts_of(op, {Fact::parse("2,1,f32"), Fact::parse("3,1,f32")}), Error);
  EXPECT_THROW(facts_of(op, {Fact::parse("2,1,f32"), Fact::parse("2,1,i64")}), Error);
  // Empty inputs contribute nothing.
  auto e = eval_op(ops::Concat(0), {iota({0, 2}), iota({1, 2})});
  EXPECT_EQ(values(e[0]), (V{0, 1}));
}

// Large concats split their copies across threads: every axis, inputs of different sizes (a
// DenseNet concat of 64 + 5 x 32 channels, two images), 1-byte and 4-byte elements, at 1 and 2
// threads, against an index-by-index expectation.
TEST(ShapeConcat, LargeConcatsAtAnyThreadCount) {
  const int64_t ch[] = {64, 32, 32, 32, 32, 32};
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    for (size_t axis = 0; axis < 4; axis++) {
      std::vector<Tensor> ins;
      int64_t total = 0;
      for (size_t i = 0; i < std::size(ch); i++) {
        Shape sh = {2, 16, 28, 28};
        sh[axis] = axis == 1 ? ch[i] : 3 + static_cast<int64_t>(i);
        Tensor t = iota(sh);
        float* p = t.data<float>();
        for (int64_t k = 0; k < t.numel(); k++) p[k] += 1000.0f * static_cast<float>(i);
        total += sh[axis];
        ins.push_back(t);
      }
      auto out = eval_op(ops::Concat(static_cast<int64_t>(axis)), ins);
      Shape want = ins[0].shape();
      want[axis] = total;
      ASSERT_EQ(out[0].shape(), want);
      // Output index -> (input, index within it).
      const float* y = out[0].data<float>();
      std::vector<int64_t> idx(4, 0);
      bool ok = true;
      for (int64_t k = 0; k < out[0].numel() && ok; k++) {
        int64_t a = idx[axis], input = 0;
        while (a >= ins[static_cast<size_t>(input)].dim(axis))
          a -= ins[static_cast<size_t>(input++)].dim(axis);
        const Tensor& t = ins[static_cast<size_t>(input)];
        int64_t off = 0;
        for (size_t d = 0; d < 4; d++) off = off * t.dim(d) + (d == axis ? a : idx[d]);
        ok = y[k] == t.data<float>()[off];
        for (size_t d = 4; d-- > 0;) {
          if (++idx[d] < want[d]) break;
          idx[d] = 0;
        }
      }
      EXPECT_TRUE(ok) << "axis " << axis << " threads " << threads;
      auto bytes = eval_op(ops::Concat(static_cast<int64_t>(axis)),
                           {ins[0].cast_to(DatumType::U8), ins[1].cast_to(DatumType::U8)});
      auto floats = eval_op(ops::Concat(static_cast<int64_t>(axis)), {ins[0], ins[1]});
      ASSERT_EQ(bytes[0].shape(), floats[0].shape());
      const auto* b = bytes[0].data<uint8_t>();
      const Tensor f8 = floats[0].cast_to(DatumType::U8);
      EXPECT_EQ(std::memcmp(b, f8.data<uint8_t>(), static_cast<size_t>(f8.numel())), 0);
    }
  }
  set_num_threads(0);
}

TEST(ShapeSlice, NegativeStepsAndClamping) {
  ops::Slice op;
  Tensor x = iota({5});
  auto out = eval_op(op, {x, i64s({-1}), i64s({-100}), i64s({0}), i64s({-2})});
  EXPECT_EQ(values(out[0]), (V{4, 2, 0}));
  out = eval_op(op, {x, i64s({1}), i64s({1000})});
  EXPECT_EQ(values(out[0]), (V{1, 2, 3, 4}));
  out = eval_op(op, {x, i64s({3}), i64s({1})});
  EXPECT_EQ(out[0].numel(), 0);
  Tensor m = iota({2, 3});
  out = eval_op(
      ops::Slice(std::vector<int64_t>{1}, std::vector<int64_t>{3}, std::vector<int64_t>{-1}), {m});
  EXPECT_EQ(values(out[0]), (V{1, 2, 4, 5}));
  EXPECT_THROW(eval_op(op, {x, i64s({0}), i64s({1}), i64s({0}), i64s({0})}), Error);
}

TEST(ShapeSlice, SymbolicFacts) {
  ops::Slice op;
  auto f = facts_of(op, {Fact::parse("S,4,f32"), Fact::constant(i64s({1})),
                         Fact::constant(i64s({INT64_MAX})), Fact::constant(i64s({0}))});
  EXPECT_EQ(f[0].to_string(), "S-1,4,f32");
  f = facts_of(
      op, {Fact::parse("S,4,f32"), Fact::constant(i64s({0, 1})), Fact::constant(i64s({-1, 3}))});
  EXPECT_EQ(f[0].to_string(), "S-1,2,f32");
}

TEST(ShapeSqueeze, AxesAttributeAndInput) {
  Tensor x = iota({1, 3, 1});
  EXPECT_EQ(eval_op(ops::Squeeze(), {x})[0].shape(), (Shape{3}));
  EXPECT_EQ(eval_op(ops::Squeeze(), {x, i64s({-1})})[0].shape(), (Shape{1, 3}));
  EXPECT_THROW(eval_op(ops::Squeeze(std::vector<int64_t>{1}), {x}), Error);
  ops::Unsqueeze u;
  EXPECT_EQ(eval_op(u, {x, i64s({0, -1})})[0].shape(), (Shape{1, 1, 3, 1, 1}));
  EXPECT_EQ(facts_of(u, {Fact::parse("S,f32"), Fact::constant(i64s({1}))})[0].to_string(),
            "S,1,f32");
  EXPECT_THROW(eval_op(u, {x, i64s({7})}), Error);
}

TEST(ShapeExpand, BroadcastsBothWays) {
  ops::Expand op;
  auto out = eval_op(op, {f32s({3, 1}, {1, 2, 3}), i64s({2, 1, 2})});
  EXPECT_EQ(out[0].shape(), (Shape{2, 3, 2}));
  EXPECT_EQ(values(out[0]), (V{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
  auto f = facts_of(op, {Fact::parse("1,S,f32"), Fact::constant(i64s({4, 1}))});
  EXPECT_EQ(f[0].to_string(), "4,S,f32");
  EXPECT_THROW(facts_of(op, {Fact::parse("3,f32"), Fact::constant(i64s({4}))}), Error);
}

TEST(ShapeTile, Repeats) {
  ops::Tile op;
  auto out = eval_op(op, {f32s({2}, {1, 2}), i64s({3})});
  EXPECT_EQ(values(out[0]), (V{1, 2, 1, 2, 1, 2}));
  out = eval_op(op, {f32s({1, 2}, {1, 2}), i64s({2, 2})});
  EXPECT_EQ(values(out[0]), (V{1, 2, 1, 2, 1, 2, 1, 2}));
  EXPECT_EQ(facts_of(op, {Fact::parse("S,2,f32"), Fact::constant(i64s({2, 1}))})[0].to_string(),
            "2*S,2,f32");
  EXPECT_THROW(eval_op(op, {f32s({2}, {1, 2}), i64s({1, 1})}), Error);
}

// Tile copies whole runs: checked against the definition (out[i] = in[i mod dim], per axis) on
// random shapes of rank 0-5 with zero dims and zero repeats, and on strings.
TEST(ShapeTile, MatchesTheDefinitionOnRandomShapes) {
  ops::Tile op;
  std::mt19937 rng(7);
  for (int trial = 0; trial < 300; trial++) {
    const size_t rank = rng() % 6;
    Shape in_shape, out_shape;
    std::vector<int64_t> reps;
    for (size_t d = 0; d < rank; d++) {
      in_shape.push_back(static_cast<int64_t>(rng() % 4) + (trial % 17 == 0 ? 0 : 1));
      reps.push_back(static_cast<int64_t>(rng() % 4) + (trial % 13 == 0 ? 0 : 1));
      out_shape.push_back(in_shape.back() * reps.back());
    }
    Tensor x = iota(in_shape);
    Tensor r = Tensor::from_vector<int64_t>({static_cast<int64_t>(rank)}, reps);
    auto out = eval_op(op, {x, r});
    ASSERT_EQ(out[0].shape(), out_shape);
    std::vector<int64_t> pos(rank, 0);
    auto in_strides = contiguous_strides(in_shape);
    for (int64_t i = 0; i < out[0].numel(); i++) {
      int64_t off = 0;
      for (size_t d = 0; d < rank; d++) off += (pos[d] % in_shape[d]) * in_strides[d];
      ASSERT_EQ(out[0].data<float>()[i], x.data<float>()[off]) << "trial " << trial << " at " << i;
      for (size_t d = rank; d-- > 0;) {
        if (++pos[d] < out_shape[d]) break;
        pos[d] = 0;
      }
    }
  }
  Tensor s(DatumType::String, {2});
  s.data<std::string>()[0] = "a";
  s.data<std::string>()[1] = "bc";
  auto out = eval_op(op, {s, i64s({2})});
  EXPECT_EQ(out[0].values<std::string>()[3], "bc");
  EXPECT_THROW(eval_op(op, {f32s({2}, {1, 2}), i64s({int64_t{1} << 62})}), Error);
}

TEST(ShapeSlice, UnknownBoundsGiveFreshDimsOnSlicedAxes) {
  ops::Slice op;
  auto f = facts_of(op, {Fact::parse("S,4,f32"), Fact::parse("1,i64"), Fact::parse("1,i64"),
                         Fact::constant(i64s({1}))});
  EXPECT_EQ(f[0].shape[0], Dim::symbol("S"));
  EXPECT_FALSE(f[0].shape[1].is_int());
}
