// Cast and CastLike to and from the narrow types: saturation (Cast-19), float8e8m0 rounding
// modes (Cast-24/25), int4/int2 wrap-around and rounding, float4, bool and string conversions.
#include <cmath>

#include "ops/elementwise/cast.h"
#include "tests/ops/elementwise/test_util.h"

using namespace kiln;
using namespace kiln::ew_test;
using ops::Cast;
using ops::CastOptions;

namespace {

Tensor through(DatumType narrow, const Tensor& x, CastOptions o = {}) {
  Tensor n = eval1(Cast(narrow, o), {x});
  EXPECT_EQ(n.dtype(), narrow);
  return eval1(Cast(DatumType::F32), {n});
}

TEST(CastNarrow, Float8SaturatesUnlessToldNot) {
  auto x = Tensor::from_vector<float>({5}, {1.0625f, 464, 470, INFINITY, -1e6f});
  // 1.0625 ties between 1 and 1.125: even -> 1.
  expect_near(as_floats(through(DatumType::F8E4M3FN, x)), {1, 448, 448, 448, -448});
  CastOptions nosat;
  nosat.saturate = false;
  auto n = as_floats(through(DatumType::F8E4M3FN, x, nosat));
  EXPECT_EQ(n[1], 448);
  EXPECT_TRUE(std::isnan(n[2]) && std::isnan(n[3]) && std::isnan(n[4]));
  auto e5 = as_floats(through(DatumType::F8E5M2, x, nosat));
  EXPECT_EQ(e5[3], INFINITY);
  EXPECT_EQ(e5[4], -INFINITY);
  expect_near(as_floats(through(DatumType::F8E5M2FNUZ, x)), {1, 448, 448, 57344, -57344});
}

TEST(CastNarrow, E8M0RoundingModes) {
  auto x = Tensor::from_vector<float>({3}, {3, 1.4f, 0});
  CastOptions up, down, nearest;
  down.e8m0_round = 1;
  nearest.e8m0_round = 2;
  expect_near(as_floats(through(DatumType::F8E8M0, x, up)), {4, 2, std::ldexp(1.0f, -127)});
  expect_near(as_floats(through(DatumType::F8E8M0, x, down)), {2, 1, std::ldexp(1.0f, -127)});
  expect_near(as_floats(through(DatumType::F8E8M0, x, nearest)), {4, 1, std::ldexp(1.0f, -127)});
}

TEST(CastNarrow, SubByteIntegersWrapAndRoundHalfAway) {
  auto i = Tensor::from_vector<int32_t>({5}, {7, 8, -9, 200, -56});
  auto n = eval1(Cast(DatumType::I4), {i});
  EXPECT_EQ(vals<int32_t>(eval1(Cast(DatumType::I32), {n})),
            (std::vector<int32_t>{7, -8, 7, -8, -8}));
  auto f = Tensor::from_vector<float>({5}, {2.5f, -2.5f, 0.5f, 7.6f, -1.0f});
  auto u = eval1(Cast(DatumType::U4), {f});
  EXPECT_EQ(vals<int32_t>(eval1(Cast(DatumType::I32), {u})),
            (std::vector<int32_t>{3, 13, 1, 8, 15}));
  auto two = eval1(Cast(DatumType::I2), {i});
  EXPECT_EQ(vals<int32_t>(eval1(Cast(DatumType::I32), {two})),
            (std::vector<int32_t>{-1, 0, -1, 0, 0}));
}

TEST(CastNarrow, Float4BoolAndStrings) {
  auto x = Tensor::from_vector<float>({6}, {0.2f, 0.3f, 2.5f, 5.0f, -7, NAN});
  expect_near(as_floats(through(DatumType::F4E2M1, x)), {0, 0.5f, 2, 4, -6, 6});
  auto f8 = eval1(Cast(DatumType::F8E4M3FN), {Tensor::from_vector<float>({3}, {0, -2, 0.1f})});
  EXPECT_EQ(vals<bool>(eval1(Cast(DatumType::Bool), {f8})), (std::vector<bool>{false, true, true}));
  EXPECT_EQ(vals<std::string>(eval1(Cast(DatumType::String), {f8})),
            (std::vector<std::string>{"0.0", "-2.0", "0.1015625"}));
  auto s = Tensor::from_vector<std::string>({2}, {"3.5", "-9"});
  EXPECT_EQ(vals<int32_t>(eval1(Cast(DatumType::I32), {eval1(Cast(DatumType::I4), {s})})),
            (std::vector<int32_t>{4, 7}));
  // CastLike takes the narrow type of its second input.
  Tensor like(DatumType::F8E5M2, {1});
  auto cl = eval1(Cast(std::nullopt), {Tensor::from_vector<float>({1}, {0.3f}), like});
  EXPECT_EQ(cl.dtype(), DatumType::F8E5M2);
  EXPECT_EQ(cl.value_as_double(0), 0.3125);
}

}  // namespace
