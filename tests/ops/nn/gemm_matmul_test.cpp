#include <gtest/gtest.h>

#include "ops/nn/dropout.h"
#include "ops/nn/gemm.h"
#include "ops/nn/matmul.h"
#include "tests/ops/nn/nn_test_util.h"

namespace kiln {
namespace {

using kiln::testing::arange_f;
using kiln::testing::expect_close;
using kiln::testing::fact_refs;
using kiln::testing::run_op;

TEST(NnGemm, TransposesAlphaBetaRowBias) {
  // A^T with A = [[1,2],[3,4],[5,6]] (K=3, M=2); B^T with B = [[1,0,1],[0,1,1]] (N=2, K=3).
  Tensor a = Tensor::from_vector<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  Tensor b = Tensor::from_vector<float>({2, 3}, {1, 0, 1, 0, 1, 1});
  Tensor c = Tensor::from_vector<float>({2}, {10, 20});
  auto y = run_op(ops::Gemm(2, 0.5f, true, true), {a, b, c});
  // A^T B^T = [[1+5, 3+5], [2+6, 4+6]] = [[6, 8], [8, 10]]; 2x + 0.5 c.
  EXPECT_EQ(y[0].shape(), Shape({2, 2}));
  expect_close(y[0], {17, 26, 21, 30});
}

// Integer products that overflow wrap like two's complement (ONNX Runtime's result; computed
// on the unsigned type, no undefined behaviour), and a scaled result saturates.
TEST(NnGemm, IntegersWrapAndScaledResultsSaturate) {
  Tensor a = Tensor::from_vector<int32_t>({1, 2}, {65536, -3});
  Tensor b = Tensor::from_vector<int32_t>({2, 1}, {65536, 5});
  auto y = run_op(ops::Gemm(1, 1, false, false), {a, b});
  EXPECT_EQ(y[0].values<int32_t>()[0], -15);  // 2^32 wraps to 0, plus -15
  Tensor c = Tensor::from_vector<int32_t>({1, 1}, {2147483647});
  y = run_op(ops::Gemm(1, 1, false, false), {a, b, c});
  EXPECT_EQ(y[0].values<int32_t>()[0], 2147483632);  // -15 + (2^31 - 1)
  Tensor x = Tensor::from_vector<int32_t>({1, 1}, {2000000000});
  Tensor one = Tensor::from_vector<int32_t>({1, 1}, {1});
  y = run_op(ops::Gemm(2, 0, false, false), {x, one});
  EXPECT_EQ(y[0].values<int32_t>()[0], 2147483647);  // 4e9 saturates
}

TEST(NnGemm, TransBOnlyAndNoBiasAndIntegers) {
  Tensor a = Tensor::from_vector<float>({1, 5}, {1, 2, 3, 4, 5});
  Tensor b = Tensor::from_vector<float>({2, 5}, {1, 1, 1, 1, 1, 0, 1, 0, 1, 0});
  expect_close(run_op(ops::Gemm(1, 1, false, true), {a, b})[0], {15, 6});
  Tensor ai = Tensor::from_vector<int64_t>({2, 2}, {1, 2, 3, 4});
  Tensor ci = Tensor::from_vector<int64_t>({2, 1}, {100, 200});
  auto y = run_op(ops::Gemm(1, 1, false, false), {ai, ai, ci});
  EXPECT_EQ(y[0].to_i64_vector(), (std::vector<int64_t>{107, 110, 215, 222}));
}

TEST(NnGemm, FactsCostAndErrors) {
  ops::Gemm g(1, 1, false, true);
  Tensor w(DatumType::F32, {10, 4});
  std::vector<Fact> in = {Fact::parse("N,4"), Fact::constant(w)};
  EXPECT_EQ(g.output_facts(fact_refs(in))[0].to_string(), "N,10,f32");
  Cost c = g.cost(fact_refs(in));
  EXPECT_EQ(c.fma, Dim::parse("40*N"));
  EXPECT_EQ(c.params_bytes, Dim(160));
  std::vector<Fact> bad = {Fact::parse("N,5"), Fact::parse("10,4")};
  EXPECT_THROW(g.output_facts(fact_refs(bad)), Error);
  std::vector<Fact> bad_c = {Fact::parse("N,4"), Fact::parse("10,4"), Fact::parse("3")};
  EXPECT_THROW(g.output_facts(fact_refs(bad_c)), Error);
}

TEST(NnMatMul, BatchedBroadcast) {
  // A [2,1,2,3] x B [3,3,2] -> [2,3,2,2].
  Tensor a = Tensor::from_vector<float>({2, 1, 2, 3}, arange_f(12));
  Tensor b = Tensor::from_vector<float>({3, 3, 2}, arange_f(18, 1, -5));
  auto y = run_op(ops::MatMul(), {a, b});
  EXPECT_EQ(y[0].shape(), Shape({2, 3, 2, 2}));
  // Check every element against a direct sum.
  std::vector<float> expected;
  for (int i0 = 0; i0 < 2; i0++)
    for (int i1 = 0; i1 < 3; i1++)
      for (int m = 0; m < 2; m++)
        for (int n = 0; n < 2; n++) {
          float s = 0;
          for (int k = 0; k < 3; k++) s += (i0 * 6 + m * 3 + k) * (i1 * 6 + k * 2 + n - 5.0f);
          expected.push_back(s);
        }
  expect_close(y[0], expected);
}

TEST(NnMatMul, VectorsAndSymbolic) {
  Tensor v = Tensor::from_vector<float>({2}, {1, 2});
  Tensor m = Tensor::from_vector<float>({2, 2}, {1, 2, 3, 4});
  auto vm = run_op(ops::MatMul(), {v, m})[0];
  EXPECT_EQ(vm.shape(), Shape({2}));
  expect_close(vm, {7, 10});
  auto mv = run_op(ops::MatMul(), {m, v})[0];
  expect_close(mv, {5, 11});
  auto vv = run_op(ops::MatMul(), {v, v})[0];
  EXPECT_EQ(vv.rank(), 0u);
  expect_close(vv, {5});
  Tensor i32 = Tensor::from_vector<int32_t>({1, 2}, {3, -4});
  Tensor i32b = Tensor::from_vector<int32_t>({2, 1}, {5, 6});
  EXPECT_EQ(run_op(ops::MatMul(), {i32, i32b})[0].to_i64_vector(), std::vector<int64_t>{-9});
  std::vector<Fact> in = {Fact::parse("B,S,64"), Fact::parse("64,32")};
  EXPECT_EQ(ops::MatMul().output_facts(fact_refs(in))[0].to_string(), "B,S,32,f32");
  EXPECT_EQ(ops::MatMul().cost(fact_refs(in)).fma, Dim::parse("2048*B*S"));
  std::vector<Fact> bad = {Fact::parse("2,3"), Fact::parse("4,2")};
  EXPECT_THROW(ops::MatMul().output_facts(fact_refs(bad)), Error);
  std::vector<Fact> bad_batch = {Fact::parse("2,2,3"), Fact::parse("3,3,2")};
  EXPECT_THROW(ops::MatMul().output_facts(fact_refs(bad_batch)), Error);
  Tensor empty(DatumType::F32, {0, 3});
  Tensor b3(DatumType::F32, {3, 4});
  EXPECT_EQ(run_op(ops::MatMul(), {empty, b3})[0].shape(), Shape({0, 4}));
}

TEST(NnDropout, InferenceIdentityAndMask) {
  Tensor x = Tensor::from_vector<float>({3}, {1, 2, 3});
  ops::Dropout d(0.5f, std::nullopt, true, true);
  auto y = run_op(d, {x}, 2);
  EXPECT_TRUE(y[0].equals(x));
  EXPECT_EQ(y[1].dtype(), DatumType::Bool);
  EXPECT_EQ(y[1].to_i64_vector(), (std::vector<int64_t>{1, 1, 1}));
  // Training with ratio 0 is still the identity.
  Tensor ratio = Tensor::scalar<float>(0.0f);
  Tensor train = Tensor::scalar<bool>(true);
  auto t = run_op(d, {x, ratio, train}, 2);
  EXPECT_TRUE(t[0].equals(x));
  EXPECT_FALSE(d.is_deterministic());
  // Training with a ratio: kept values are scaled by 1 / (1 - ratio), the mask says which.
  Tensor half = Tensor::scalar<float>(0.5f);
  ops::Dropout seeded(0.5f, 7, true, true);
  auto r = run_op(seeded,
                  {Tensor::from_vector<float>({64}, std::vector<float>(64, 1.0f)), half, train}, 2);
  for (int64_t i = 0; i < 64; i++) {
    EXPECT_EQ(r[0].value_as_double(i), r[1].value_as_i64(i) ? 2.0 : 0.0);
  }
  std::vector<Fact> bad = {Fact::parse("3"), Fact::parse("2")};
  EXPECT_THROW(d.output_facts(fact_refs(bad)), Error);
}

// Integer MatMul products that overflow wrap like two's complement (as ONNX Runtime's), computed
// on an unsigned type: a signed overflow was undefined behaviour (UBSan, fuzz finding 22).
TEST(NnMatMul, IntegersWrapLikeTwosComplement) {
  Tensor a = Tensor::from_vector<int32_t>({1, 2}, {65536, -3});
  Tensor b = Tensor::from_vector<int32_t>({2, 2}, {65536, 1028356992, 5, 7});
  auto y = run_op(ops::MatMul(), {a, b});
  // 2^32 wraps to 0; 65536 * 1028356992 = 2^16 * (981 * 2^20 + ...) keeps its low 32 bits.
  const uint32_t wrapped = 65536u * 1028356992u - 21u;
  EXPECT_EQ(y[0].values<int32_t>()[0], -15);
  EXPECT_EQ(y[0].values<int32_t>()[1], static_cast<int32_t>(wrapped));
  Tensor a64 = Tensor::from_vector<int64_t>({1, 2}, {int64_t{1} << 32, 3});
  Tensor b64 = Tensor::from_vector<int64_t>({2, 1}, {int64_t{1} << 32, -5});
  EXPECT_EQ(run_op(ops::MatMul(), {a64, b64})[0].values<int64_t>()[0], -15);  // 2^64 wraps to 0
}

}  // namespace
}  // namespace kiln
