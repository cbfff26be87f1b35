#include "ops/quant/matmul_integer.h"

#include <gtest/gtest.h>

#include "ops/quant/qlinear_matmul.h"
#include "tests/ops/image/image_test_util.h"

using namespace kiln;
using kiln::image_test::run;
using kiln::image_test::values;

namespace {
Tensor a23() {
  return Tensor::from_vector<uint8_t>({2, 3}, {1, 2, 3, 4, 5, 6});
}
Tensor b32() {
  return Tensor::from_vector<uint8_t>({3, 2}, {1, 0, 0, 1, 1, 1});
}
}  // namespace

TEST(MatMulInteger, ScalarAndPerRowZeroPoints) {
  ops::MatMulInteger op;
  auto y = run(op, {a23(), b32(), Tensor::scalar<uint8_t>(1)});
  EXPECT_EQ(y[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(values<int32_t>(y[0]), (std::vector<int32_t>{2, 3, 8, 9}));
  auto r = run(op, {a23(), b32(), Tensor::from_vector<uint8_t>({2}, {1, 4})});
  EXPECT_EQ(values<int32_t>(r[0]), (std::vector<int32_t>{2, 3, 2, 3}));
  auto c = run(op, {a23(), b32(), Tensor(), Tensor::from_vector<uint8_t>({2}, {1, 0})});
  EXPECT_EQ(values<int32_t>(c[0]), (std::vector<int32_t>{-2, 5, -5, 11}));
}

TEST(MatMulInteger, VectorsAndBatchBroadcast) {
  ops::MatMulInteger op;
  auto v = run(op, {Tensor::from_vector<int8_t>({3}, {1, 2, 3}), b32()});
  EXPECT_EQ(v[0].shape(), (Shape{2}));
  EXPECT_EQ(values<int32_t>(v[0]), (std::vector<int32_t>{4, 5}));
  auto b = run(op, {Tensor::from_vector<int8_t>({2, 1, 2}, {1, 2, 3, -4}),
                    Tensor::from_vector<int8_t>({2, 1}, {1, 1})});
  EXPECT_EQ(b[0].shape(), (Shape{2, 1, 1}));
  EXPECT_EQ(values<int32_t>(b[0]), (std::vector<int32_t>{3, -1}));
}

TEST(MatMulInteger, SymbolicFactsCostAndErrors) {
  ops::MatMulInteger op;
  Fact a(DatumType::U8, std::vector<Dim>{Dim::symbol("N"), Dim::symbol("S"), 3});
  Fact b(DatumType::I8, std::vector<Dim>{3, 4});
  auto f = op.output_facts({&a, &b});
  EXPECT_EQ(f[0].dt, DatumType::I32);
  EXPECT_EQ(dims_to_string(f[0].shape), "N,S,4");
  EXPECT_EQ(op.cost({&a, &b}).fma, Dim::symbol("N") * Dim::symbol("S") * Dim(12));
  Fact bad(DatumType::U8, std::vector<Dim>{2, 4});
  EXPECT_THROW(op.output_facts({&a, &bad}), Error);
  Fact f32(DatumType::F32, std::vector<Dim>{3, 4});
  EXPECT_THROW(op.output_facts({&a, &f32}), Error);
  EXPECT_THROW(run(op, {a23(), Tensor::from_vector<uint8_t>({2, 2}, {1, 2, 3, 4})}), Error);
}

TEST(QLinearMatMul, RequantizesAndSaturates) {
  ops::QLinearMatMul op;
  Tensor a = Tensor::from_vector<uint8_t>({1, 2}, {2, 4});
  Tensor b = Tensor::from_vector<uint8_t>({2, 1}, {3, 1});
  // real a = [1, 2], real b = [[2], [0]]: product 2, quantized 2 / 0.5 + 10.
  auto y = run(op, {a, Tensor::scalar<float>(0.5f), Tensor::scalar<uint8_t>(0), b,
                    Tensor::scalar<float>(1.f), Tensor::scalar<uint8_t>(1),
                    Tensor::scalar<float>(0.5f), Tensor::scalar<uint8_t>(10)});
  EXPECT_EQ(values<uint8_t>(y[0]), (std::vector<uint8_t>{14}));
  auto s = run(op, {a, Tensor::scalar<float>(0.5f), Tensor::scalar<uint8_t>(0), b,
                    Tensor::scalar<float>(1.f), Tensor::scalar<uint8_t>(1),
                    Tensor::scalar<float>(0.01f), Tensor::scalar<uint8_t>(250)});
  EXPECT_EQ(values<uint8_t>(s[0]), (std::vector<uint8_t>{255}));
  auto i = run(op, {a, Tensor::scalar<float>(0.5f), Tensor::scalar<uint8_t>(0), b,
                    Tensor::scalar<float>(1.f), Tensor::scalar<uint8_t>(1),
                    Tensor::scalar<float>(-0.5f), Tensor::scalar<int8_t>(0)});
  EXPECT_EQ(values<int8_t>(i[0]), (std::vector<int8_t>{-4}));
}
