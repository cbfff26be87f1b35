// Pad, Split, ConstantOfShape, Range, Trilu, OneHot, EyeLike, ReverseSequence, Shape, Size.
#include <gtest/gtest.h>

#include <random>

#include "ops/shape/constant_of_shape.h"
#include "ops/shape/eye_like.h"
#include "ops/shape/one_hot.h"
#include "ops/shape/pad.h"
#include "ops/shape/range.h"
#include "ops/shape/reverse_sequence.h"
#include "ops/shape/shape_of.h"
#include "ops/shape/split.h"
#include "ops/shape/trilu.h"
#include "tests/ops/shape/test_util.h"

using namespace kiln;
using namespace kiln::test;
using V = std::vector<float>;

TEST(ShapePad, Modes) {
  Tensor x = f32s({3}, {1, 2, 3});
  Tensor pads = i64s({2, 2});
  auto run = [&](ops::PadMode m) { return values(eval_op(ops::Pad(m), {x, pads})[0]); };
  EXPECT_EQ(run(ops::PadMode::Constant), (V{0, 0, 1, 2, 3, 0, 0}));
  EXPECT_EQ(run(ops::PadMode::Reflect), (V{3, 2, 1, 2, 3, 2, 1}));
  EXPECT_EQ(run(ops::PadMode::Edge), (V{1, 1, 1, 2, 3, 3, 3}));
  EXPECT_EQ(run(ops::PadMode::Wrap), (V{2, 3, 1, 2, 3, 1, 2}));
  auto out = eval_op(ops::Pad(ops::PadMode::Constant), {x, i64s({-1, 1}), f32s({}, {9})});
  EXPECT_EQ(values(out[0]), (V{2, 3, 9}));
  // Attribute form and axes input.
  out = eval_op(ops::Pad(ops::PadMode::Constant, std::vector<int64_t>{0, 1, 0, 0}, 5.0),
                {iota({1, 2})});
  EXPECT_EQ(values(out[0]), (V{5, 0, 1}));
  out = eval_op(ops::Pad(ops::PadMode::Edge), {iota({2, 2}), i64s({1, 0}), Tensor(), i64s({-1})});
  EXPECT_EQ(values(out[0]), (V{0, 0, 1, 2, 2, 3}));
  auto f = facts_of(ops::Pad(ops::PadMode::Constant),
                    {Fact::parse("S,2,f32"), Fact::constant(i64s({1, 0, 1, 3}))});
  EXPECT_EQ(f[0].to_string(), "S+2,5,f32");
  EXPECT_THROW(eval_op(ops::Pad(ops::PadMode::Constant), {x, i64s({1})}), Error);
}

// Pad in every mode on random shapes (ranks 0-5, empty axes, negative pads that crop) against
// an element-by-element definition: reflect bounces off the ends, edge clamps, wrap is modulo.
TEST(ShapePad, MatchesTheDefinitionOnRandomShapes) {
  std::mt19937 rng(7);
  auto source = [](int64_t i, int64_t n, ops::PadMode m) -> int64_t {
    if (i >= 0 && i < n) return i;
    if (m == ops::PadMode::Constant) return -1;
    if (m == ops::PadMode::Edge) return i < 0 ? 0 : n - 1;
    if (m == ops::PadMode::Wrap) return ((i % n) + n) % n;
    if (n == 1) return 0;
    while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i;  // reflect
    return i;
  };
  int checked = 0;
  for (int trial = 0; trial < 400; trial++) {
    auto mode = static_cast<ops::PadMode>(trial % 4);
    size_t rank = rng() % 6;
    Shape dims;
    for (size_t d = 0; d < rank; d++) dims.push_back(rng() % 5 == 0 ? 0 : 1 + rng() % 4);
    std::vector<int64_t> pads(2 * rank);
    Shape out_dims(rank);
    bool ok = true;
    for (size_t d = 0; d < rank; d++) {
      int64_t lo = mode == ops::PadMode::Reflect ? -(dims[d] - 1) : -dims[d];
      for (int k = 0; k < 2; k++) {
        int64_t p = static_cast<int64_t>(rng() % 7) - 2;
        if (mode == ops::PadMode::Reflect)
          p = std::min<int64_t>(p, std::max<int64_t>(dims[d] - 1, 0));
        pads[d + k * rank] = std::max(p, lo / 2);
      }
      out_dims[d] = dims[d] + pads[d] + pads[d + rank];
      if (out_dims[d] < 0 || (mode != ops::PadMode::Constant && dims[d] == 0 && out_dims[d] > 0))
        ok = false;
    }
    if (!ok) continue;
    Tensor x(DatumType::F32, dims);
    for (int64_t i = 0; i < x.numel(); i++) x.data<float>()[i] = static_cast<float>(i + 1);
    Tensor y = eval_op(ops::Pad(mode, pads, -7.0), {x})[0];
    ASSERT_EQ(y.shape(), out_dims);
    auto in_strides = contiguous_strides(dims);
    std::vector<int64_t> pos(rank, 0);
    for (int64_t i = 0; i < y.numel(); i++) {
      int64_t off = 0;
      bool inside = true;
      for (size_t d = 0; d < rank; d++) {
        int64_t s = source(pos[d] - pads[d], dims[d], mode);
        inside = inside && s >= 0;
        off += s * in_strides[d];
      }
      float want = inside ? x.data<float>()[off] : -7.0f;
      ASSERT_EQ(y.data<float>()[i], want) << "trial " << trial << " element " << i;
      for (size_t d = rank; d-- > 0;) {
        if (++pos[d] < out_dims[d]) break;
        pos[d] = 0;
      }
    }
    checked++;
  }
  EXPECT_GT(checked, 300);
}

TEST(ShapeSplit, SizesAndUneven) {
  Tensor x = iota({5});
  auto out = eval_op(ops::Split(0, 2, std::vector<int64_t>{1, 4}), {x}, 2);
  EXPECT_EQ(values(out[0]), (V{0}));
  EXPECT_EQ(values(out[1]), (V{1, 2, 3, 4}));
  out = eval_op(ops::Split(0, 3), {x}, 3);
  EXPECT_EQ(values(out[0]), (V{0, 1}));
  EXPECT_EQ(values(out[2]), (V{4}));
  out = eval_op(ops::Split(-1, 2), {iota({2, 2}), i64s({1, 1})}, 2);
  EXPECT_EQ(values(out[1]), (V{1, 3}));
  auto f = facts_of(ops::Split(1, 2), {Fact::parse("3,2*S,f32")});
  EXPECT_EQ(f[0].to_string(), "3,S,f32");
  EXPECT_EQ(f[1].to_string(), "3,S,f32");
  EXPECT_THROW(eval_op(ops::Split(0, 2, std::vector<int64_t>{1, 1}), {x}, 2), Error);
}

TEST(ShapeConstantOfShape, FillAndSymbolic) {
  ops::ConstantOfShape op(Tensor::from_vector<int32_t>({1}, {7}));
  auto out = eval_op(op, {i64s({2, 2})});
  EXPECT_TRUE(out[0].equals(Tensor::from_vector<int32_t>({2, 2}, {7, 7, 7, 7})));
  Fact shape(DatumType::I64, std::vector<Dim>{Dim(2)});
  shape.dims_value = std::vector<Dim>{Dim::symbol("S"), Dim(3)};
  EXPECT_EQ(facts_of(op, {shape})[0].to_string(), "S,3,i32");
  EXPECT_EQ(eval_op(ops::ConstantOfShape(), {i64s({0})})[0].numel(), 0);
}

TEST(ShapeRange, IntAndFloat) {
  auto out = eval_op(ops::Range(), {Tensor::scalar<int64_t>(10), Tensor::scalar<int64_t>(4),
                                    Tensor::scalar<int64_t>(-3)});
  EXPECT_TRUE(out[0].equals(i64s({10, 7})));
  out = eval_op(ops::Range(),
                {Tensor::scalar<float>(1), Tensor::scalar<float>(2), Tensor::scalar<float>(0.25f)});
  EXPECT_EQ(values(out[0]), (V{1, 1.25f, 1.5f, 1.75f}));
  Fact start = Fact::constant(Tensor::scalar<int64_t>(0));
  Fact limit(DatumType::I64, std::vector<Dim>{});
  limit.dims_value = std::vector<Dim>{Dim::symbol("S")};
  Fact delta = Fact::constant(Tensor::scalar<int64_t>(1));
  EXPECT_EQ(facts_of(ops::Range(), {start, limit, delta})[0].to_string(), "S,i64");
  EXPECT_THROW(eval_op(ops::Range(), {Tensor::scalar<int64_t>(0), Tensor::scalar<int64_t>(1),
                                      Tensor::scalar<int64_t>(0)}),
               Error);
}

TEST(ShapeTrilu, UpperLowerK) {
  Tensor x = f32s({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(values(eval_op(ops::Trilu(true), {x})[0]), (V{1, 2, 3, 0, 5, 6}));
  EXPECT_EQ(values(eval_op(ops::Trilu(false), {x})[0]), (V{1, 0, 0, 4, 5, 0}));
  EXPECT_EQ(values(eval_op(ops::Trilu(true), {x, Tensor::scalar<int64_t>(1)})[0]),
            (V{0, 2, 3, 0, 0, 6}));
  EXPECT_THROW(facts_of(ops::Trilu(), {Fact::parse("3,f32")}), Error);
  // Empty, with dims whose product overflows (UBSan, fuzz finding 27).
  Tensor empty(DatumType::F32, {0, 16, INT64_MAX});
  EXPECT_EQ(eval_op(ops::Trilu(true), {empty})[0].shape(), empty.shape());
}

TEST(ShapeOneHot, AxisAndNegative) {
  Tensor idx = i64s({0, -1, 5});
  auto out = eval_op(ops::OneHot(-1), {idx, Tensor::scalar<int64_t>(3), f32s({2}, {0, 1})});
  EXPECT_EQ(out[0].shape(), (Shape{3, 3}));
  EXPECT_EQ(values(out[0]), (V{1, 0, 0, 0, 0, 1, 0, 0, 0}));
  out = eval_op(ops::OneHot(0), {i64s({1, 0}), Tensor::scalar<float>(2), f32s({2}, {-1, 2})});
  EXPECT_EQ(values(out[0]), (V{-1, 2, 2, -1}));
}

TEST(ShapeEyeLike, OffsetAndType) {
  auto out = eval_op(ops::EyeLike(DatumType::I32, 1), {iota({2, 3})});
  EXPECT_TRUE(out[0].equals(Tensor::from_vector<int32_t>({2, 3}, {0, 1, 0, 0, 0, 1})));
}

TEST(ShapeReverseSequence, BatchAxis0) {
  Tensor x = iota({2, 3});  // batch 2, time 3
  auto out = eval_op(ops::ReverseSequence(0, 1), {x, i64s({2, 3})});
  EXPECT_EQ(values(out[0]), (V{1, 0, 2, 5, 4, 3}));
  EXPECT_THROW(eval_op(ops::ReverseSequence(0, 1), {x, i64s({4, 0})}), Error);
}

TEST(ShapeShapeOp, StartEnd) {
  auto out = eval_op(ops::ShapeOf(1, -1), {iota({2, 3, 4, 5})});
  EXPECT_TRUE(out[0].equals(i64s({3, 4})));
  auto f = facts_of(ops::ShapeOf(-10, 100), {Fact::parse("N,3,f32")});
  EXPECT_EQ(dims_to_string(*f[0].dims_value), "N,3");
  auto s = facts_of(ops::Size(), {Fact::parse("N,3,f32")});
  EXPECT_EQ(dims_to_string(*s[0].dims_value), "3*N");
  EXPECT_EQ(eval_op(ops::Size(), {iota({2, 3})})[0].value_as_i64(0), 6);
}
