// QuantizeLinear / DequantizeLinear of opsets 19-25: blocked scales, 4- and 2-bit integers,
// float8 with and without saturation, output_dtype. Expected values by hand.
#include "ops/quant/dequantize_linear.h"
#include "ops/quant/quantize_linear.h"
#include "tests/ops/nn/nn_test_util.h"

namespace kiln {
namespace {

using testing::expect_close;
using testing::run_op;

TEST(Quant21, BlockedScalesAlongAnAxis) {
  // x [2, 5], blocks of 2 along axis 1: scales [2, 3].
  Tensor x = Tensor::from_vector<float>({2, 5}, {1, 2, 3, 4, 5, -1, -2, -3, -4, -5});
  Tensor s = Tensor::from_vector<float>({2, 3}, {1, 2, 4, 0.5f, 1, 2});
  ops::QuantizeOptions o;
  o.block_size = 2;
  auto q = run_op(ops::QuantizeLinear(1, DatumType::I8, o), {x, s})[0];
  ASSERT_EQ(q.dtype(), DatumType::I8);
  // 1/1, 2/1, 3/2=1.5->2, 4/2=2, 5/4=1.25->1 ; -1/.5, -2/.5, -3/1, -4/1, -5/2=-2.5->-2
  EXPECT_EQ(std::vector<int8_t>(q.values<int8_t>().begin(), q.values<int8_t>().end()),
            (std::vector<int8_t>{1, 2, 2, 2, 1, -2, -4, -3, -4, -2}));
  auto d = run_op(ops::DequantizeLinear(1, 2), {q, s})[0];
  expect_close(d, {1, 2, 4, 4, 4, -1, -2, -3, -4, -4});
  // A scale of the wrong blocked shape is refused.
  Tensor bad = Tensor::from_vector<float>({2, 2}, {1, 1, 1, 1});
  EXPECT_THROW(run_op(ops::QuantizeLinear(1, DatumType::I8, o), {x, bad}), Error);
}

TEST(Quant21, FourAndTwoBitIntegersSaturate) {
  Tensor x = Tensor::from_vector<float>({6}, {-100, -8.5f, -0.5f, 0.5f, 7.4f, 100});
  Tensor one = Tensor::scalar<float>(1.0f);
  auto q4 = run_op(ops::QuantizeLinear(1, DatumType::I4), {x, one})[0];
  ASSERT_EQ(q4.dtype(), DatumType::I4);
  std::vector<int64_t> got;
  for (int64_t i = 0; i < 6; i++) got.push_back(q4.value_as_i64(i));
  EXPECT_EQ(got, (std::vector<int64_t>{-8, -8, 0, 0, 7, 7}));  // half to even: -0.5 -> 0
  Tensor zp(DatumType::U2, {});
  zp.data<u2>()[0] = u2(1);
  auto q2 = run_op(ops::QuantizeLinear(1), {x, one, zp})[0];
  ASSERT_EQ(q2.dtype(), DatumType::U2);
  got.clear();
  for (int64_t i = 0; i < 6; i++) got.push_back(q2.value_as_i64(i));
  EXPECT_EQ(got, (std::vector<int64_t>{0, 0, 1, 1, 3, 3}));
  auto back = run_op(ops::DequantizeLinear(), {q2, Tensor::scalar<float>(0.5f), zp})[0];
  expect_close(back, {-0.5f, -0.5f, 0, 0, 1, 1});
}

TEST(Quant21, Float8WithAndWithoutSaturation) {
  Tensor x = Tensor::from_vector<float>({4}, {1, 500, -1e6f, 3.3f});
  Tensor s = Tensor::scalar<float>(1.0f);
  Tensor zp(DatumType::F8E4M3FN, {});
  ops::QuantizeOptions sat;
  auto q = run_op(ops::QuantizeLinear(1, DatumType::U8, sat), {x, s, zp})[0];
  ASSERT_EQ(q.dtype(), DatumType::F8E4M3FN);
  expect_close(q, {1, 448, -448, 3.25f});
  ops::QuantizeOptions nosat;
  nosat.saturate = false;
  auto n = run_op(ops::QuantizeLinear(1, DatumType::U8, nosat), {x, s, zp})[0];
  EXPECT_TRUE(std::isnan(n.value_as_double(1)) && std::isnan(n.value_as_double(2)));
  auto d = run_op(ops::DequantizeLinear(1, 0, DatumType::F16), {q, Tensor::scalar<float>(2.0f)})[0];
  ASSERT_EQ(d.dtype(), DatumType::F16);
  expect_close(d, {2, 896, -896, 6.5f});
}

}  // namespace
}  // namespace kiln
