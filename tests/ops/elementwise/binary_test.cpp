#include "ops/elementwise/binary.h"

#include <cmath>
#include <limits>

#include "base/error.h"
#include "tests/ops/elementwise/test_util.h"

using namespace kiln;
using namespace kiln::ew_test;
using ops::Binary;
using ops::BinaryKind;

TEST(ElementwiseBinary, AddBroadcastsLikeNumpy) {
  auto a = Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto b = Tensor::from_vector<float>({3}, {10, 20, 30});
  auto c = eval1(Binary(BinaryKind::Add), {a, b});
  EXPECT_EQ(c.shape(), (Shape{2, 3}));
  EXPECT_EQ(vals<float>(c), (std::vector<float>{11, 22, 33, 14, 25, 36}));
  // [2,1] - [1,3] -> [2,3]
  auto col = Tensor::from_vector<float>({2, 1}, {1, 2});
  auto row = Tensor::from_vector<float>({1, 3}, {1, 2, 3});
  auto d = eval1(Binary(BinaryKind::Sub), {col, row});
  EXPECT_EQ(d.shape(), (Shape{2, 3}));
  EXPECT_EQ(vals<float>(d), (std::vector<float>{0, -1, -2, 1, 0, -1}));
  // Empty broadcast.
  auto e = Tensor(DatumType::F32, Shape{0, 3});
  EXPECT_EQ(eval1(Binary(BinaryKind::Mul), {e, b}).shape(), (Shape{0, 3}));
  auto bad = Tensor::from_vector<float>({2}, {1, 2});
  EXPECT_THROW(eval1(Binary(BinaryKind::Add), {a, bad}), Error);
}

TEST(ElementwiseBinary, FactsBroadcastSymbolically) {
  Fact a = Fact::parse("N,S,1,f32");
  Fact b = Fact::parse("1,8,f32");
  EXPECT_EQ(facts1(Binary(BinaryKind::Mul), {&a, &b}).to_string(), "N,S,8,f32");
  Fact i = Fact::parse("8,i32");
  EXPECT_THROW(Binary(BinaryKind::Add).output_facts({&a, &i}), Error);  // type mismatch
  Fact c = Fact::parse("3,f32");
  EXPECT_THROW(Binary(BinaryKind::Add).output_facts({&b, &c}), Error);  // 8 vs 3
  EXPECT_EQ(facts1(Binary(BinaryKind::Less), {&a, &b}).dt, DatumType::Bool);
  EXPECT_THROW(Binary(BinaryKind::Add).output_facts({&a}), Error);
}

TEST(ElementwiseBinary, IntegerDivTruncatesAndModFollowsDivisorSign) {
  auto a = Tensor::from_vector<int32_t>({4}, {7, -7, 7, -7});
  auto b = Tensor::from_vector<int32_t>({4}, {2, 2, -2, -2});
  EXPECT_EQ(vals<int32_t>(eval1(Binary(BinaryKind::Div), {a, b})),
            (std::vector<int32_t>{3, -3, -3, 3}));
  auto m = Tensor::from_vector<int32_t>({4}, {3, 3, -3, -3});
  EXPECT_EQ(vals<int32_t>(eval1(Binary(BinaryKind::Mod), {a, m})),
            (std::vector<int32_t>{1, 2, -2, -1}));
  EXPECT_EQ(vals<int32_t>(eval1(Binary(BinaryKind::FMod), {a, m})),
            (std::vector<int32_t>{1, -1, 1, -1}));
  auto zero = Tensor::from_vector<int32_t>({1}, {0});
  EXPECT_THROW(eval1(Binary(BinaryKind::Div), {a, zero}), Error);
  EXPECT_THROW(eval1(Binary(BinaryKind::Mod), {a, zero}), Error);
  // INT_MIN / -1 wraps instead of trapping.
  auto lo = Tensor::from_vector<int32_t>({1}, {std::numeric_limits<int32_t>::min()});
  auto minus1 = Tensor::from_vector<int32_t>({1}, {-1});
  EXPECT_EQ(vals<int32_t>(eval1(Binary(BinaryKind::Div), {lo, minus1}))[0],
            std::numeric_limits<int32_t>::min());
  auto u = Tensor::from_vector<uint8_t>({2}, {250, 3});
  auto v = Tensor::from_vector<uint8_t>({2}, {10, 5});
  EXPECT_EQ(vals<uint8_t>(eval1(Binary(BinaryKind::Add), {u, v})), (std::vector<uint8_t>{4, 8}));
  EXPECT_EQ(vals<uint8_t>(eval1(Binary(BinaryKind::Sub), {v, u})), (std::vector<uint8_t>{16, 2}));
}

TEST(ElementwiseBinary, FloatMod) {
  auto a = Tensor::from_vector<float>({4}, {5.5f, -5.5f, 5.5f, -5.5f});
  auto b = Tensor::from_vector<float>({4}, {2.0f, 2.0f, -2.0f, -2.0f});
  expect_near(vals<float>(eval1(Binary(BinaryKind::FMod), {a, b})), {1.5f, -1.5f, 1.5f, -1.5f});
  expect_near(vals<float>(eval1(Binary(BinaryKind::Mod), {a, b})), {1.5f, 0.5f, -0.5f, -1.5f});
}

TEST(ElementwiseBinary, PowMixedTypes) {
  auto base = Tensor::from_vector<float>({3}, {2.0f, 4.0f, -2.0f});
  auto e_int = Tensor::from_vector<int64_t>({3}, {3, -1, 2});
  auto p = eval1(Binary(BinaryKind::Pow), {base, e_int});
  EXPECT_EQ(p.dtype(), DatumType::F32);
  expect_near(vals<float>(p), {8.0f, 0.25f, 4.0f});
  auto ibase = Tensor::from_vector<int32_t>({3}, {2, 3, -2});
  auto ie = Tensor::from_vector<int32_t>({3}, {10, 0, 3});
  EXPECT_EQ(vals<int32_t>(eval1(Binary(BinaryKind::Pow), {ibase, ie})),
            (std::vector<int32_t>{1024, 1, -8}));
  // Integer base with a float exponent: computed in floating point, truncated back.
  auto fe = Tensor::from_vector<float>({3}, {0.5f, 2.0f, 2.0f});
  EXPECT_EQ(vals<int32_t>(eval1(Binary(BinaryKind::Pow), {ibase, fe})),
            (std::vector<int32_t>{1, 9, 4}));
  Fact fb(DatumType::I64, Shape{3});
  Fact ff(DatumType::F32, Shape{1});
  EXPECT_EQ(facts1(Binary(BinaryKind::Pow), {&fb, &ff}).dt, DatumType::I64);
}

TEST(ElementwiseBinary, ComparisonsLogicAndBits) {
  auto a = Tensor::from_vector<int64_t>({3}, {1, 2, 3});
  auto b = Tensor::from_vector<int64_t>({1}, {2});
  EXPECT_EQ(vals<bool>(eval1(Binary(BinaryKind::Equal), {a, b})),
            (std::vector<bool>{false, true, false}));
  EXPECT_EQ(vals<bool>(eval1(Binary(BinaryKind::Greater), {a, b})),
            (std::vector<bool>{false, false, true}));
  EXPECT_EQ(vals<bool>(eval1(Binary(BinaryKind::LessOrEqual), {a, b})),
            (std::vector<bool>{true, true, false}));
  EXPECT_EQ(vals<bool>(eval1(Binary(BinaryKind::GreaterOrEqual), {a, b})),
            (std::vector<bool>{false, true, true}));
  float nan = std::numeric_limits<float>::quiet_NaN();
  auto fn = Tensor::from_vector<float>({2}, {nan, 1.0f});
  EXPECT_EQ(vals<bool>(eval1(Binary(BinaryKind::Equal), {fn, fn})),
            (std::vector<bool>{false, true}));
  auto s1 = Tensor::from_vector<std::string>({2}, {"a", "b"});
  auto s2 = Tensor::from_vector<std::string>({2}, {"a", "c"});
  EXPECT_EQ(vals<bool>(eval1(Binary(BinaryKind::Equal), {s1, s2})),
            (std::vector<bool>{true, false}));

  auto t = Tensor::from_vector<bool>({4}, {true, true, false, false});
  auto f = Tensor::from_vector<bool>({4}, {true, false, true, false});
  EXPECT_EQ(vals<bool>(eval1(Binary(BinaryKind::And), {t, f})),
            (std::vector<bool>{true, false, false, false}));
  EXPECT_EQ(vals<bool>(eval1(Binary(BinaryKind::Or), {t, f})),
            (std::vector<bool>{true, true, true, false}));
  EXPECT_EQ(vals<bool>(eval1(Binary(BinaryKind::Xor), {t, f})),
            (std::vector<bool>{false, true, true, false}));
  Fact ff(DatumType::F32, Shape{4});
  EXPECT_THROW(Binary(BinaryKind::And).output_facts({&ff, &ff}), Error);

  auto x = Tensor::from_vector<uint8_t>({3}, {1, 0x80, 16});
  auto s = Tensor::from_vector<uint8_t>({3}, {3, 1, 9});
  EXPECT_EQ(vals<uint8_t>(eval1(Binary(BinaryKind::ShiftLeft), {x, s})),
            (std::vector<uint8_t>{8, 0, 0}));
  EXPECT_EQ(vals<uint8_t>(eval1(Binary(BinaryKind::ShiftRight), {x, s})),
            (std::vector<uint8_t>{0, 0x40, 0}));
  Fact fi(DatumType::I32, Shape{3});
  EXPECT_THROW(Binary(BinaryKind::ShiftLeft).output_facts({&fi, &fi}), Error);
  auto i1 = Tensor::from_vector<int32_t>({2}, {0b1100, -1});
  auto i2 = Tensor::from_vector<int32_t>({2}, {0b1010, 5});
  EXPECT_EQ(vals<int32_t>(eval1(Binary(BinaryKind::BitwiseAnd), {i1, i2})),
            (std::vector<int32_t>{0b1000, 5}));
  EXPECT_EQ(vals<int32_t>(eval1(Binary(BinaryKind::BitwiseXor), {i1, i2})),
            (std::vector<int32_t>{0b0110, -6}));
}

TEST(ElementwiseBinary, PReluBroadcastsSlopeToInput) {
  auto x = Tensor::from_vector<float>({2, 2}, {-1, 2, -3, 4});
  auto slope = Tensor::from_vector<float>({2}, {0.1f, 0.5f});
  expect_near(vals<float>(eval1(Binary(BinaryKind::PRelu), {x, slope})), {-0.1f, 2, -0.3f, 4});
  // The slope may not grow the output.
  auto big = Tensor::from_vector<float>({3, 2, 2}, std::vector<float>(12, 1.0f));
  EXPECT_THROW(eval1(Binary(BinaryKind::PRelu), {x, big}), Error);
  Fact fx = Fact::parse("2,2,f32");
  Fact fs = Fact::parse("3,2,2,f32");
  EXPECT_THROW(Binary(BinaryKind::PRelu).output_facts({&fx, &fs}), Error);
  // Legacy (opset < 7) per-channel slope: [C] lines up with axis 1 of [N,C,W].
  auto x3 = Tensor::from_vector<float>({1, 2, 2}, {-1, -1, -1, -1});
  auto ch = Tensor::from_vector<float>({2}, {0.1f, 0.2f});
  expect_near(vals<float>(eval1(Binary(BinaryKind::PRelu, 1), {x3, ch})),
              {-0.1f, -0.1f, -0.2f, -0.2f});
}

TEST(ElementwiseBinary, LegacyAxisBroadcast) {
  auto a = Tensor::from_vector<float>({2, 3, 2}, std::vector<float>(12, 0.0f));
  auto b = Tensor::from_vector<float>({3}, {1, 2, 3});
  auto c = eval1(Binary(BinaryKind::Add, 1), {a, b});
  EXPECT_EQ(vals<float>(c), (std::vector<float>{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
  Fact fa(DatumType::F32, Shape{2, 3, 2});
  Fact fb(DatumType::F32, Shape{3});
  EXPECT_EQ(facts1(Binary(BinaryKind::Add, 1), {&fa, &fb}).to_string(), "2,3,2,f32");
  EXPECT_THROW(Binary(BinaryKind::Add, 2).output_facts({&fa, &fb}), Error);
}

TEST(ElementwiseBinary, ShapeArithmeticStaysSymbolic) {
  Dim s = Dim::symbol("S");
  Fact shape(DatumType::I64, Shape{2});
  shape.dims_value = std::vector<Dim>{s, Dim(6)};
  Fact two = Fact::constant(Tensor::from_vector<int64_t>({1}, {2}));
  Fact div = facts1(Binary(BinaryKind::Div), {&shape, &two});
  ASSERT_TRUE(div.dims_value.has_value());
  EXPECT_EQ((*div.dims_value)[0], s.div(2));
  EXPECT_EQ((*div.dims_value)[1], Dim(3));
  Fact mul = facts1(Binary(BinaryKind::Mul), {&shape, &two});
  EXPECT_EQ((*mul.dims_value)[0], s * Dim(2));
  Fact add = facts1(Binary(BinaryKind::Add), {&shape, &shape});
  EXPECT_EQ((*add.dims_value)[0], s * Dim(2));
  EXPECT_EQ((*add.dims_value)[1], Dim(12));
  Fact scalar(DatumType::I64, std::vector<Dim>{});
  scalar.dims_value = std::vector<Dim>{s};
  Fact one = Fact::constant(Tensor::scalar<int64_t>(1));
  Fact sub = facts1(Binary(BinaryKind::Sub), {&scalar, &one});
  EXPECT_EQ(sub.rank(), 0u);
  EXPECT_EQ((*sub.dims_value)[0], s - Dim(1));
  // C truncation for concrete negative values; unknown divisor gives no dims.
  Fact neg = Fact::constant(Tensor::from_vector<int64_t>({1}, {-7}));
  EXPECT_EQ((*facts1(Binary(BinaryKind::Div), {&neg, &two}).dims_value)[0], Dim(-3));
  Fact sym_div(DatumType::I64, Shape{1});
  sym_div.dims_value = std::vector<Dim>{s};
  EXPECT_FALSE(facts1(Binary(BinaryKind::Div), {&shape, &sym_div}).dims_value.has_value());
  Cost c = Binary(BinaryKind::Add).cost({&shape, &shape});
  EXPECT_TRUE(c.known);
}
