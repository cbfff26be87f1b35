#include "ops/quant/quantize_linear.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>

#include "ops/quant/dequantize_linear.h"
#include "tests/ops/image/image_test_util.h"

using namespace kiln;
using kiln::image_test::run;
using kiln::image_test::values;

TEST(QuantizeLinear, RoundsHalfToEvenAndSaturatesU8) {
  ops::QuantizeLinear op;
  Tensor x = Tensor::from_vector<float>({7}, {0.5f, 1.5f, 2.5f, -2.5f, 300.f, -20.f, 3.4f});
  auto y = run(op, {x, Tensor::scalar<float>(1.f), Tensor::scalar<uint8_t>(10)});
  // 0.5->0, 1.5->2, 2.5->2, -2.5->-2 (ties to even), then +10; 310 and -10 saturate.
  EXPECT_EQ(values<uint8_t>(y[0]), (std::vector<uint8_t>{10, 12, 12, 8, 255, 0, 13}));
}

TEST(QuantizeLinear, DefaultsToU8WithoutZeroPoint) {
  ops::QuantizeLinear op;
  Fact x(DatumType::F32, std::vector<Dim>{Dim::symbol("N"), 3});
  Fact s(DatumType::F32, std::vector<Dim>{});
  auto f = op.output_facts({&x, &s});
  EXPECT_EQ(f[0].dt, DatumType::U8);
  EXPECT_EQ(dims_to_string(f[0].shape), "N,3");
  auto y = run(op, {Tensor::from_vector<float>({2}, {-1.f, 5.f}), Tensor::scalar<float>(2.f)});
  EXPECT_EQ(values<uint8_t>(y[0]), (std::vector<uint8_t>{0, 2}));  // -0.5->0, 2.5->2
}

TEST(QuantizeLinear, PerAxisI8WithNegativeAxis) {
  ops::QuantizeLinear op(-1);
  Tensor x = Tensor::from_vector<float>({2, 2}, {1.f, 1.f, -300.f, 4.f});
  Tensor scale = Tensor::from_vector<float>({2}, {0.5f, 2.f});
  Tensor zp = Tensor::from_vector<int8_t>({2}, {1, -1});
  auto y = run(op, {x, scale, zp});
  // column 0: x/0.5 + 1; column 1: x/2 - 1 (0.5 rounds to 0).
  EXPECT_EQ(values<int8_t>(y[0]), (std::vector<int8_t>{3, -1, -128, 1}));
}

TEST(QuantizeLinear, RejectsBadScaleLength) {
  ops::QuantizeLinear op(1);
  Fact x(DatumType::F32, std::vector<Dim>{2, 3});
  Fact s(DatumType::F32, std::vector<Dim>{2});
  EXPECT_THROW(op.output_facts({&x, &s}), Error);
  Fact xi(DatumType::I8, std::vector<Dim>{2, 3});
  Fact s1(DatumType::F32, std::vector<Dim>{});
  EXPECT_THROW(op.output_facts({&xi, &s1}), Error);
}

TEST(DequantizeLinear, PerTensorAndPerAxis) {
  ops::DequantizeLinear op;
  auto y = run(op, {Tensor::from_vector<uint8_t>({3}, {0, 128, 255}), Tensor::scalar<float>(0.5f),
                    Tensor::scalar<uint8_t>(128)});
  EXPECT_EQ(values<float>(y[0]), (std::vector<float>{-64.f, 0.f, 63.5f}));
  ops::DequantizeLinear axis0(0);
  auto z = run(axis0, {Tensor::from_vector<int8_t>({2, 2}, {1, 2, 3, 4}),
                       Tensor::from_vector<float>({2}, {1.f, 10.f}),
                       Tensor::from_vector<int8_t>({2}, {0, 1})});
  EXPECT_EQ(values<float>(z[0]), (std::vector<float>{1.f, 2.f, 20.f, 30.f}));
}

// Every axis of a 3-D tensor (the last one: MatMul weights; a middle one with rows before and
// after it), per tensor, with and without zero points, each integer type: against
// float(x - zp) * scale computed here element by element.
TEST(DequantizeLinear, PerAxisOnEveryAxisAndType) {
  const std::vector<int64_t> dims{3, 4, 5};
  std::mt19937 rng(7);
  auto check = [&](auto tag, int64_t axis, bool per_tensor, bool with_zp) {
    using T = decltype(tag);
    std::uniform_int_distribution<int> dist(-1000, 1000);  // clamped to T below
    const int64_t count = per_tensor ? 1 : dims[axis];
    std::vector<T> x(60), zp(count);
    std::vector<float> scale(count);
    for (auto& v : x)
      v = static_cast<T>(
          std::clamp<int>(dist(rng), std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
    for (auto& v : zp)
      v = static_cast<T>(std::clamp<int>(dist(rng) / 10, std::numeric_limits<T>::min(),
                                         std::numeric_limits<T>::max()));
    for (int64_t a = 0; a < count; a++) scale[a] = 0.001f * static_cast<float>(a + 3) / 7.f;
    std::vector<Tensor> in{
        Tensor::from_vector<T>(dims, x),
        per_tensor ? Tensor::scalar<float>(scale[0]) : Tensor::from_vector<float>({count}, scale)};
    if (with_zp)
      in.push_back(per_tensor ? Tensor::scalar<T>(zp[0]) : Tensor::from_vector<T>({count}, zp));
    ops::DequantizeLinear op(axis);
    auto y = values<float>(run(op, in)[0]);
    const int64_t inner = axis == 2 ? 1 : axis == 1 ? 5 : 20;
    for (int64_t i = 0; i < 60; i++) {
      const int64_t a = per_tensor ? 0 : (i / inner) % dims[axis];
      const int64_t z = with_zp ? static_cast<int64_t>(zp[a]) : 0;
      const float want = static_cast<float>(static_cast<int64_t>(x[i]) - z) * scale[a];
      ASSERT_EQ(y[i], want) << "axis " << axis << " element " << i;
    }
  };
  for (int64_t axis : {0, 1, 2})
    for (bool per_tensor : {false, true})
      for (bool with_zp : {false, true}) {
        check(uint8_t{}, axis, per_tensor, with_zp);
        check(int8_t{}, axis, per_tensor, with_zp);
        check(uint16_t{}, axis, per_tensor, with_zp);
        check(int16_t{}, axis, per_tensor, with_zp);
        check(int32_t{}, axis, per_tensor, with_zp);
      }
}

TEST(DequantizeLinear, I32WithoutZeroPointAndF16Scale) {
  ops::DequantizeLinear op;
  Fact x(DatumType::I32, std::vector<Dim>{4});
  Fact s(DatumType::F16, std::vector<Dim>{});
  EXPECT_EQ(op.output_facts({&x, &s})[0].dt, DatumType::F16);
  auto y =
      run(op, {Tensor::from_vector<int32_t>({2}, {-3, 1000}), Tensor::scalar<f16>(f16(0.25f))});
  EXPECT_EQ(static_cast<float>(y[0].data<f16>()[0]), -0.75f);
  EXPECT_EQ(static_cast<float>(y[0].data<f16>()[1]), 250.f);
}

TEST(DequantizeLinear, RejectsFloatInputAndMismatchedZeroPoint) {
  ops::DequantizeLinear op;
  Fact xf(DatumType::F32, std::vector<Dim>{4});
  Fact s(DatumType::F32, std::vector<Dim>{});
  EXPECT_THROW(op.output_facts({&xf, &s}), Error);
  Fact x(DatumType::U8, std::vector<Dim>{4});
  Fact zp(DatumType::I8, std::vector<Dim>{});
  EXPECT_THROW(op.output_facts({&x, &s, &zp}), Error);
}
