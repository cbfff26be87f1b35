#include <cmath>
#include <limits>

#include "base/error.h"
#include "ops/elementwise/clip.h"
#include "ops/elementwise/variadic.h"
#include "ops/elementwise/where.h"
#include "tests/ops/elementwise/test_util.h"

using namespace kiln;
using namespace kiln::ew_test;
using ops::Clip;
using ops::Variadic;
using ops::VariadicKind;
using ops::Where;

TEST(ElementwiseVariadic, ThreeInputsBroadcast) {
  auto a = Tensor::from_vector<float>({2, 1}, {1, 2});
  auto b = Tensor::from_vector<float>({3}, {10, 20, 30});
  auto c = Tensor::from_vector<float>({}, {100});
  auto sum = eval1(Variadic(VariadicKind::Sum), {a, b, c});
  EXPECT_EQ(sum.shape(), (Shape{2, 3}));
  EXPECT_EQ(vals<float>(sum), (std::vector<float>{111, 121, 131, 112, 122, 132}));
  expect_near(vals<float>(eval1(Variadic(VariadicKind::Mean), {a, b, c})),
              {37, 121.f / 3, 131.f / 3, 112.f / 3, 122.f / 3, 44});
  EXPECT_EQ(vals<float>(eval1(Variadic(VariadicKind::Max), {a, b})),
            (std::vector<float>{10, 20, 30, 10, 20, 30}));
  EXPECT_EQ(vals<float>(eval1(Variadic(VariadicKind::Min), {a, b})),
            (std::vector<float>{1, 1, 1, 2, 2, 2}));
  // A single input is copied.
  EXPECT_EQ(vals<float>(eval1(Variadic(VariadicKind::Max), {b})), (std::vector<float>{10, 20, 30}));
  Fact fa = Fact::parse("N,1,f32");
  Fact fb = Fact::parse("S,f32");
  EXPECT_EQ(facts1(Variadic(VariadicKind::Sum), {&fa, &fb}).to_string(), "N,S,f32");
}

TEST(ElementwiseVariadic, IntegersNaNAndErrors) {
  auto a = Tensor::from_vector<uint8_t>({3}, {1, 200, 7});
  auto b = Tensor::from_vector<uint8_t>({3}, {5, 100, 7});
  EXPECT_EQ(vals<uint8_t>(eval1(Variadic(VariadicKind::Max), {a, b})),
            (std::vector<uint8_t>{5, 200, 7}));
  EXPECT_EQ(vals<uint8_t>(eval1(Variadic(VariadicKind::Min), {a, b})),
            (std::vector<uint8_t>{1, 100, 7}));
  float nan = std::numeric_limits<float>::quiet_NaN();
  auto x = Tensor::from_vector<float>({2}, {nan, 1});
  auto y = Tensor::from_vector<float>({2}, {0, nan});
  auto m = vals<float>(eval1(Variadic(VariadicKind::Max), {x, y}));
  EXPECT_TRUE(std::isnan(m[0]));
  EXPECT_TRUE(std::isnan(m[1]));
  Fact fi(DatumType::I32, Shape{3});
  Fact ff(DatumType::F32, Shape{3});
  EXPECT_THROW(Variadic(VariadicKind::Sum).output_facts({&fi, &ff}), Error);
  EXPECT_THROW(Variadic(VariadicKind::Mean).output_facts({&fi}), Error);
  EXPECT_THROW(Variadic(VariadicKind::Sum).output_facts({}), Error);
  auto h = Tensor::from_vector<f16>({1}, {f16(1.5f)});
  expect_near(as_floats(eval1(Variadic(VariadicKind::Sum), {h, h})), {3.0f});
}

TEST(ElementwiseWhere, SelectsWithBroadcast) {
  auto c = Tensor::from_vector<bool>({2, 1}, {true, false});
  auto x = Tensor::from_vector<int64_t>({3}, {1, 2, 3});
  auto y = Tensor::from_vector<int64_t>({}, {-1});
  auto w = eval1(Where(), {c, x, y});
  EXPECT_EQ(w.shape(), (Shape{2, 3}));
  EXPECT_EQ(vals<int64_t>(w), (std::vector<int64_t>{1, 2, 3, -1, -1, -1}));
  auto sx = Tensor::from_vector<std::string>({2}, {"a", "b"});
  auto sy = Tensor::from_vector<std::string>({2}, {"c", "d"});
  auto c2 = Tensor::from_vector<bool>({2}, {false, true});
  EXPECT_EQ(vals<std::string>(eval1(Where(), {c2, sx, sy})), (std::vector<std::string>{"c", "b"}));
  Fact fc(DatumType::F32, Shape{2});
  Fact fx(DatumType::I64, Shape{2});
  Fact fy(DatumType::I32, Shape{2});
  EXPECT_THROW(Where().output_facts({&fc, &fx, &fx}), Error);
  Fact fb(DatumType::Bool, Shape{2});
  EXPECT_THROW(Where().output_facts({&fb, &fx, &fy}), Error);
}

TEST(ElementwiseWhere, KeepsShapeValuesSymbolic) {
  // Where(shape == 0, 1, shape) on a shape [S, 0]: the classic "replace zeros" pattern.
  Fact cond = Fact::constant(Tensor::from_vector<bool>({2}, {false, true}));
  Fact one = Fact::constant(Tensor::from_vector<int64_t>({1}, {1}));
  Fact shape(DatumType::I64, Shape{2});
  shape.dims_value = std::vector<Dim>{Dim::symbol("S"), Dim(0)};
  Fact out = facts1(Where(), {&cond, &one, &shape});
  ASSERT_TRUE(out.dims_value.has_value());
  EXPECT_EQ((*out.dims_value)[0], Dim::symbol("S"));
  EXPECT_EQ((*out.dims_value)[1], Dim(1));
}

TEST(ElementwiseClip, AttributesAndInputs) {
  auto x = Tensor::from_vector<float>({4}, {-2, -0.5f, 0.5f, 2});
  EXPECT_EQ(vals<float>(eval1(Clip(-1.0, 1.0), {x})), (std::vector<float>{-1, -0.5f, 0.5f, 1}));
  EXPECT_EQ(vals<float>(eval1(Clip(std::nullopt, 0.0), {x})),
            (std::vector<float>{-2, -0.5f, 0, 0}));
  auto lo = Tensor::scalar<float>(0.0f);
  auto hi = Tensor::scalar<float>(1.0f);
  EXPECT_EQ(vals<float>(eval1(Clip(), {x, lo, hi})), (std::vector<float>{0, 0, 0.5f, 1}));
  EXPECT_EQ(vals<float>(eval1(Clip(), {x, Tensor(), hi})),
            (std::vector<float>{-2, -0.5f, 0.5f, 1}));
  EXPECT_EQ(vals<float>(eval1(Clip(), {x})), vals<float>(x));
  // min > max: everything becomes max.
  EXPECT_EQ(vals<float>(eval1(Clip(), {x, hi, lo})), (std::vector<float>{0, 0, 0, 0}));
  auto i8 = Tensor::from_vector<int8_t>({3}, {-128, 0, 127});
  auto i8lo = Tensor::scalar<int8_t>(-5);
  EXPECT_EQ(vals<int8_t>(eval1(Clip(), {i8, i8lo})), (std::vector<int8_t>{-5, 0, 127}));
  Fact fx(DatumType::F32, Shape{4});
  Fact fi(DatumType::I8, std::vector<Dim>{});
  Fact fv(DatumType::F32, Shape{2});
  EXPECT_THROW(Clip().output_facts({&fx, &fi}), Error);
  EXPECT_THROW(Clip().output_facts({&fx, &fv}), Error);
  EXPECT_EQ(facts1(Clip(), {&fx, nullptr, nullptr}).to_string(), "4,f32");
}
