#include "ops/elementwise/cast.h"

#include <cmath>
#include <limits>

#include "base/error.h"
#include "tests/ops/elementwise/test_util.h"

using namespace kiln;
using namespace kiln::ew_test;
using ops::Cast;

TEST(ElementwiseCast, NumericConversions) {
  auto x = Tensor::from_vector<float>({4}, {1.7f, -1.7f, 0.0f, 300.0f});
  EXPECT_EQ(vals<int32_t>(eval1(Cast(DatumType::I32), {x})), (std::vector<int32_t>{1, -1, 0, 300}));
  EXPECT_EQ(vals<bool>(eval1(Cast(DatumType::Bool), {x})),
            (std::vector<bool>{true, true, false, true}));
  auto h = eval1(Cast(DatumType::F16), {x});
  ASSERT_EQ(h.dtype(), DatumType::F16);
  expect_near(as_floats(h), {1.7001953f, -1.7001953f, 0.0f, 300.0f}, 1e-6f);
  auto bf = eval1(Cast(DatumType::BF16), {x});
  expect_near(as_floats(bf), {1.703125f, -1.703125f, 0.0f, 300.0f}, 1e-6f);
  auto back = eval1(Cast(DatumType::F64), {h});
  EXPECT_NEAR(back.values<double>()[0], 1.7001953125, 1e-12);
  auto b = Tensor::from_vector<bool>({2}, {true, false});
  EXPECT_EQ(vals<float>(eval1(Cast(DatumType::F32), {b})), (std::vector<float>{1, 0}));
  auto i = Tensor::from_vector<int64_t>({2}, {-1, 256});
  EXPECT_EQ(vals<uint8_t>(eval1(Cast(DatumType::U8), {i})), (std::vector<uint8_t>{255, 0}));
  // Same type: a view of the input.
  auto same = eval1(Cast(DatumType::F32), {x});
  EXPECT_TRUE(same.shares_storage_with(x));
}

TEST(ElementwiseCast, Strings) {
  auto x = Tensor::from_vector<float>({5}, {0.9767611f, 0.039187793f, 1.0f, 1e-5f, -2.5e20f});
  EXPECT_EQ(vals<std::string>(eval1(Cast(DatumType::String), {x})),
            (std::vector<std::string>{"0.9767611", "0.039187793", "1.0", "1e-05", "-2.5e+20"}));
  auto i = Tensor::from_vector<int32_t>({2}, {-12, 7});
  EXPECT_EQ(vals<std::string>(eval1(Cast(DatumType::String), {i})),
            (std::vector<std::string>{"-12", "7"}));
  auto s = Tensor::from_vector<std::string>({4}, {"0.47892547", "-1e3", "INF", "NaN"});
  auto f = vals<float>(eval1(Cast(DatumType::F32), {s}));
  EXPECT_FLOAT_EQ(f[0], 0.47892547f);
  EXPECT_FLOAT_EQ(f[1], -1000.0f);
  EXPECT_TRUE(std::isinf(f[2]));
  EXPECT_TRUE(std::isnan(f[3]));
  auto si = Tensor::from_vector<std::string>({2}, {"42", "-3"});
  EXPECT_EQ(vals<int64_t>(eval1(Cast(DatumType::I64), {si})), (std::vector<int64_t>{42, -3}));
  EXPECT_EQ(ops::float_to_string(123456.0, false), "123456.0");
  EXPECT_EQ(ops::float_to_string(0.0001, false), "0.0001");
  EXPECT_EQ(ops::float_to_string(-0.0, false), "-0.0");
  EXPECT_EQ(ops::float_to_string(1e16, false), "1e+16");
  auto h = Tensor::from_vector<f16>({3}, {f16(0.1f), f16(-2.0f), f16(65504.0f)});
  EXPECT_EQ(vals<std::string>(eval1(Cast(DatumType::String), {h})),
            (std::vector<std::string>{"0.1", "-2.0", "65500.0"}));
}

TEST(ElementwiseCast, FactsAndCastLike) {
  Fact x = Fact::parse("N,3,f32");
  EXPECT_EQ(facts1(Cast(DatumType::I64), {&x}).to_string(), "N,3,i64");
  Fact like(DatumType::F16, Shape{1});
  Cast cast_like(std::nullopt);
  EXPECT_EQ(cast_like.name(), "CastLike");
  EXPECT_EQ(facts1(cast_like, {&x, &like}).to_string(), "N,3,f16");
  EXPECT_THROW(cast_like.output_facts({&x}), Error);
  auto t = Tensor::from_vector<float>({1}, {2.5f});
  auto l = Tensor::from_vector<int8_t>({1}, {0});
  EXPECT_EQ(vals<int8_t>(eval1(cast_like, {t, l})), (std::vector<int8_t>{2}));
  // Integer casts of shape tensors stay symbolic.
  Fact shape(DatumType::I64, Shape{2});
  shape.dims_value = std::vector<Dim>{Dim::symbol("S"), Dim(4)};
  Fact i32 = facts1(Cast(DatumType::I32), {&shape});
  ASSERT_TRUE(i32.dims_value.has_value());
  EXPECT_EQ((*i32.dims_value)[0], Dim::symbol("S"));
  EXPECT_FALSE(facts1(Cast(DatumType::F32), {&shape}).dims_value.has_value());
}
