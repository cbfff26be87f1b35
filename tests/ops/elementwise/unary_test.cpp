#include "ops/elementwise/unary.h"

#include <cmath>
#include <limits>

#include "base/error.h"
#include "tests/ops/elementwise/test_util.h"

using namespace kiln;
using namespace kiln::ew_test;
using ops::Unary;
using ops::UnaryKind;
using ops::UnaryParams;

TEST(ElementwiseUnary, MathFunctions) {
  auto x = Tensor::from_vector<float>({2, 2}, {0.0f, 1.0f, -1.0f, 0.5f});
  expect_near(vals<float>(eval1(Unary(UnaryKind::Exp), {x})),
              {1.0f, 2.7182817f, 0.36787945f, 1.6487213f});
  expect_near(vals<float>(eval1(Unary(UnaryKind::Sigmoid), {x})),
              {0.5f, 0.7310586f, 0.26894143f, 0.62245935f});
  expect_near(vals<float>(eval1(Unary(UnaryKind::Tanh), {x})),
              {0.0f, 0.7615942f, -0.7615942f, 0.46211717f});
  expect_near(vals<float>(eval1(Unary(UnaryKind::Erf), {x})),
              {0.0f, 0.8427008f, -0.8427008f, 0.5204999f});
  expect_near(vals<float>(eval1(Unary(UnaryKind::Softplus), {x})),
              {0.6931472f, 1.3132616f, 0.3132617f, 0.974077f});
  expect_near(vals<float>(eval1(Unary(UnaryKind::Softsign), {x})),
              {0.0f, 0.5f, -0.5f, 0.33333334f});
  expect_near(vals<float>(eval1(Unary(UnaryKind::HardSwish), {x})),
              {0.0f, 0.6666667f, -0.33333334f, 0.29166666f});
  // Sigmoid must not overflow for large magnitudes.
  auto big = Tensor::from_vector<float>({2}, {-1000.0f, 1000.0f});
  expect_near(vals<float>(eval1(Unary(UnaryKind::Sigmoid), {big})), {0.0f, 1.0f});
}

TEST(ElementwiseUnary, ParametricActivations) {
  auto x = Tensor::from_vector<float>({4}, {-2.0f, -0.25f, 0.25f, 2.0f});
  UnaryParams p;
  p.alpha = 0.1f;
  expect_near(vals<float>(eval1(Unary(UnaryKind::LeakyRelu, p), {x})),
              {-0.2f, -0.025f, 0.25f, 2.0f});
  p.alpha = 2.0f;
  // Elu: alpha * (exp(x) - 1) below zero.
  expect_near(vals<float>(eval1(Unary(UnaryKind::Elu, p), {x})),
              {2.0f * (std::exp(-2.0f) - 1), 2.0f * (std::exp(-0.25f) - 1), 0.25f, 2.0f});
  p.alpha = 1.0f;
  expect_near(vals<float>(eval1(Unary(UnaryKind::ThresholdedRelu, p), {x})),
              {0.0f, 0.0f, 0.0f, 2.0f});
  p.alpha = 0.5f;  // lambd
  p.beta = 0.1f;   // bias
  expect_near(vals<float>(eval1(Unary(UnaryKind::Shrink, p), {x})), {-1.9f, 0.0f, 0.0f, 1.9f});
  p.alpha = 0.2f;
  p.beta = 0.5f;
  expect_near(vals<float>(eval1(Unary(UnaryKind::HardSigmoid, p), {x})),
              {0.1f, 0.45f, 0.55f, 0.9f});
  p.alpha = 2.0f;
  p.gamma = 3.0f;
  expect_near(
      vals<float>(eval1(Unary(UnaryKind::Selu, p), {x})),
      {3.0f * 2.0f * (std::exp(-2.0f) - 1), 3.0f * 2.0f * (std::exp(-0.25f) - 1), 0.75f, 6.0f});
}

TEST(ElementwiseUnary, RoundHalfToEvenAndRounding) {
  auto x = Tensor::from_vector<float>({6}, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.4f});
  expect_near(vals<float>(eval1(Unary(UnaryKind::Round), {x})),
              {0.0f, 2.0f, 2.0f, -0.0f, -2.0f, 2.0f});
  expect_near(vals<float>(eval1(Unary(UnaryKind::Ceil), {x})), {1, 2, 3, -0.0f, -1, 3});
  expect_near(vals<float>(eval1(Unary(UnaryKind::Floor), {x})), {0, 1, 2, -1, -2, 2});
}

TEST(ElementwiseUnary, IntegerInputs) {
  auto x = Tensor::from_vector<int32_t>({4}, {-3, 0, 5, std::numeric_limits<int32_t>::min()});
  EXPECT_EQ(vals<int32_t>(eval1(Unary(UnaryKind::Abs), {x})),
            (std::vector<int32_t>{3, 0, 5, std::numeric_limits<int32_t>::min()}));
  EXPECT_EQ(vals<int32_t>(eval1(Unary(UnaryKind::Neg), {x})),
            (std::vector<int32_t>{3, 0, -5, std::numeric_limits<int32_t>::min()}));
  EXPECT_EQ(vals<int32_t>(eval1(Unary(UnaryKind::Sign), {x})),
            (std::vector<int32_t>{-1, 0, 1, -1}));
  EXPECT_EQ(vals<int32_t>(eval1(Unary(UnaryKind::Relu), {x})), (std::vector<int32_t>{0, 0, 5, 0}));
  auto u = Tensor::from_vector<uint8_t>({2}, {0, 0xF0});
  EXPECT_EQ(vals<uint8_t>(eval1(Unary(UnaryKind::BitwiseNot), {u})),
            (std::vector<uint8_t>{0xFF, 0x0F}));
  // Exp is float-only.
  Fact fi(DatumType::I32, Shape{4});
  EXPECT_THROW(Unary(UnaryKind::Exp).output_facts({&fi}), Error);
  EXPECT_THROW(eval1(Unary(UnaryKind::Exp), {x}), Error);
}

TEST(ElementwiseUnary, PredicatesAndNot) {
  float inf = std::numeric_limits<float>::infinity();
  float nan = std::numeric_limits<float>::quiet_NaN();
  auto x = Tensor::from_vector<float>({4}, {inf, -inf, nan, 1.0f});
  EXPECT_EQ(vals<bool>(eval1(Unary(UnaryKind::IsNaN), {x})),
            (std::vector<bool>{false, false, true, false}));
  EXPECT_EQ(vals<bool>(eval1(Unary(UnaryKind::IsInf), {x})),
            (std::vector<bool>{true, true, false, false}));
  UnaryParams positive_only;
  positive_only.detect_negative = false;
  EXPECT_EQ(vals<bool>(eval1(Unary(UnaryKind::IsInf, positive_only), {x})),
            (std::vector<bool>{true, false, false, false}));
  Fact xf(DatumType::F32, Shape{4});
  EXPECT_EQ(facts1(Unary(UnaryKind::IsNaN), {&xf}).dt, DatumType::Bool);

  auto b = Tensor::from_vector<bool>({3}, {true, false, true});
  EXPECT_EQ(vals<bool>(eval1(Unary(UnaryKind::Not), {b})), (std::vector<bool>{false, true, false}));
  EXPECT_THROW(Unary(UnaryKind::Not).output_facts({&xf}), Error);
}

TEST(ElementwiseUnary, HalfTypesComputeThroughFloat) {
  auto x = Tensor::from_vector<f16>({2}, {f16(0.0f), f16(2.0f)});
  auto y = eval1(Unary(UnaryKind::Sqrt), {x});
  ASSERT_EQ(y.dtype(), DatumType::F16);
  expect_near(as_floats(y), {0.0f, 1.4140625f}, 1e-3f);
  auto b = Tensor::from_vector<bf16>({1}, {bf16(-4.0f)});
  expect_near(as_floats(eval1(Unary(UnaryKind::Abs), {b})), {4.0f});
  auto d = Tensor::from_vector<double>({1}, {1e-10});
  EXPECT_NEAR(eval1(Unary(UnaryKind::Log), {d}).values<double>()[0], std::log(1e-10), 1e-12);
}

TEST(ElementwiseUnary, FactsKeepSymbolicShapeAndCost) {
  Fact x = Fact::parse("N,S,8,f32");
  Fact out = facts1(Unary(UnaryKind::Tanh), {&x});
  EXPECT_EQ(out.to_string(), "N,S,8,f32");
  Cost c = Unary(UnaryKind::Tanh).cost({&x});
  EXPECT_TRUE(c.known);
  EXPECT_EQ(c.other, Dim::parse("8*N*S"));
  Cost relu = Unary(UnaryKind::Relu).cost({&x});
  EXPECT_TRUE(relu.known);
  EXPECT_EQ(relu.other, Dim(0));
  // Neg of a shape tensor stays symbolic.
  Fact shape(DatumType::I64, Shape{2});
  shape.dims_value = std::vector<Dim>{Dim::symbol("S"), Dim(3)};
  Fact neg = facts1(Unary(UnaryKind::Neg), {&shape});
  ASSERT_TRUE(neg.dims_value.has_value());
  EXPECT_EQ((*neg.dims_value)[0], -Dim::symbol("S"));
  EXPECT_EQ((*neg.dims_value)[1], Dim(-3));
}

TEST(ElementwiseUnary, EmptyTensorAndBadArity) {
  auto e = Tensor(DatumType::F32, Shape{0, 3});
  EXPECT_EQ(eval1(Unary(UnaryKind::Exp), {e}).shape(), (Shape{0, 3}));
  Fact x(DatumType::F32, Shape{2});
  EXPECT_THROW(Unary(UnaryKind::Exp).output_facts({&x, &x}), Error);
  EXPECT_THROW(Unary(UnaryKind::Exp).output_facts({nullptr}), Error);
}

TEST(ElementwiseUnary, GeluAndCelu) {
  auto x = Tensor::from_vector<float>({3}, {-1.0f, 0.0f, 2.0f});
  // 0.5 * x * (1 + erf(x / sqrt(2)))
  expect_near(vals<float>(eval1(Unary(UnaryKind::Gelu), {x})), {-0.15865526f, 0.0f, 1.9544997f});
  expect_near(vals<float>(eval1(Unary(UnaryKind::GeluTanh), {x})),
              {-0.15880801f, 0.0f, 1.9545977f});
  UnaryParams p;
  p.alpha = 2.0f;
  // max(0, x) + min(0, alpha * (exp(x / alpha) - 1))
  expect_near(vals<float>(eval1(Unary(UnaryKind::Celu, p), {x})),
              {2.0f * (std::exp(-0.5f) - 1.0f), 0.0f, 2.0f});
}

// NaN propagates through the activations with a clamp or a max / min in their formula, as
// through ONNX's reference (np.clip, np.maximum): Celu, HardSigmoid, HardSwish, in float (the
// vectorized kernels) and double (the scalar form).
TEST(ElementwiseUnary, NaNPropagatesThroughClamps) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  UnaryParams p;
  p.alpha = 0.3f;
  p.beta = 0.4f;
  for (UnaryKind k : {UnaryKind::Celu, UnaryKind::HardSigmoid, UnaryKind::HardSwish}) {
    UnaryParams q = p;
    if (k == UnaryKind::Celu) q.alpha = 0.8f;
    auto f = vals<float>(eval1(Unary(k, q), {Tensor::from_vector<float>({3}, {nan, 1.0f, nan})}));
    EXPECT_TRUE(std::isnan(f[0]) && std::isnan(f[2])) << static_cast<int>(k);
    EXPECT_FALSE(std::isnan(f[1]));
    auto d = vals<double>(eval1(Unary(k, q), {Tensor::from_vector<double>({2}, {1.0, NAN})}));
    EXPECT_TRUE(std::isnan(d[1])) << static_cast<int>(k);
  }
}
