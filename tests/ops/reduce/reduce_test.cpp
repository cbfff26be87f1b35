#include "ops/reduce/reduce.h"

#include <cstring>
#include <limits>
#include <random>

#include "base/error.h"
#include "tests/ops/reduce/op_test_util.h"

namespace kiln {
namespace {

using namespace reduce_test;
using ops::Reduce;
using ops::ReduceKind;

const float kInf = std::numeric_limits<float>::infinity();

// [[1, 2, 3], [4, 5, 6]]
Tensor sample() {
  return f32({2, 3}, {1, 2, 3, 4, 5, 6});
}

float reduce_one(ReduceKind kind, const Tensor& x) {
  Reduce op(kind, std::vector<int64_t>{}, false);
  return run(op, {x})[0].data<float>()[0];
}

TEST(ReduceOp, SumOverAxisAttribute) {
  Reduce keep(ReduceKind::Sum, std::vector<int64_t>{1}, true);
  expect_values<float>(run(keep, {sample()})[0], {2, 1}, {6, 15});
  Reduce drop(ReduceKind::Sum, std::vector<int64_t>{-2}, false);
  expect_values<float>(run(drop, {sample()})[0], {3}, {5, 7, 9});
}

TEST(ReduceOp, AllKindsOverAllAxes) {
  Tensor x = sample();
  EXPECT_FLOAT_EQ(reduce_one(ReduceKind::Sum, x), 21);
  EXPECT_FLOAT_EQ(reduce_one(ReduceKind::Mean, x), 3.5);
  EXPECT_FLOAT_EQ(reduce_one(ReduceKind::Max, x), 6);
  EXPECT_FLOAT_EQ(reduce_one(ReduceKind::Min, x), 1);
  EXPECT_FLOAT_EQ(reduce_one(ReduceKind::Prod, x), 720);
  EXPECT_FLOAT_EQ(reduce_one(ReduceKind::SumSquare, x), 91);
  EXPECT_NEAR(reduce_one(ReduceKind::L2, x), std::sqrt(91.0), 1e-5);
  EXPECT_NEAR(reduce_one(ReduceKind::LogSum, x), std::log(21.0), 1e-6);
  Tensor neg = f32({3}, {-1, 2, -3});
  EXPECT_FLOAT_EQ(reduce_one(ReduceKind::L1, neg), 6);
  EXPECT_FLOAT_EQ(reduce_one(ReduceKind::Max, neg), 2);
  Tensor nan = f32({3}, {1, std::numeric_limits<float>::quiet_NaN(), 3});
  EXPECT_TRUE(std::isnan(reduce_one(ReduceKind::Max, nan)));
  EXPECT_TRUE(std::isnan(reduce_one(ReduceKind::Min, nan)));
}

TEST(ReduceOp, LogSumExpIsStableOnLargeValues) {
  Reduce op(ReduceKind::LogSumExp, std::vector<int64_t>{1}, false);
  // log(e^1 + e^2 + e^3) = 3.40760596; shifting by 1000 shifts the result.
  Tensor x = f32({2, 3}, {1, 2, 3, 1001, 1002, 1003});
  expect_values<float>(run(op, {x})[0], {2}, {3.40760596f, 1003.40760596f}, 1e-3);
}

TEST(ReduceOp, EmptyReductionGivesIdentity) {
  Tensor x(DatumType::F32, Shape{2, 0});
  auto check = [&](ReduceKind kind, float want) {
    Reduce op(kind, std::vector<int64_t>{1}, false);
    Tensor y = run(op, {x})[0];
    ASSERT_EQ(y.shape(), Shape{2});
    if (std::isnan(want))
      EXPECT_TRUE(std::isnan(y.data<float>()[0]));
    else
      EXPECT_EQ(y.data<float>()[0], want) << reduce_kind_name(kind);
  };
  check(ReduceKind::Sum, 0);
  check(ReduceKind::Prod, 1);
  check(ReduceKind::Max, -kInf);
  check(ReduceKind::Min, kInf);
  check(ReduceKind::L1, 0);
  check(ReduceKind::L2, 0);
  check(ReduceKind::SumSquare, 0);
  check(ReduceKind::LogSum, -kInf);
  check(ReduceKind::LogSumExp, -kInf);
  check(ReduceKind::Mean, std::numeric_limits<float>::quiet_NaN());
}

TEST(ReduceOp, AxesFromInput) {
  Reduce op(ReduceKind::Sum, std::nullopt, true);
  expect_values<float>(run(op, {sample(), i64({1}, {0})})[0], {1, 3}, {5, 7, 9});
  // No axes input: reduce everything.
  expect_values<float>(run(op, {sample(), Tensor()})[0], {1, 1}, {21});
  // Empty axes with noop_with_empty_axes: the input itself.
  Reduce noop(ReduceKind::Sum, std::nullopt, true, true);
  expect_values<float>(run(noop, {sample(), i64({0}, {})})[0], {2, 3}, {1, 2, 3, 4, 5, 6});
  expect_values<float>(run(op, {sample(), i64({0}, {})})[0], {1, 1}, {21});
}

TEST(ReduceOp, IntegerTypesStayExact) {
  Tensor x = Tensor::from_vector<int64_t>({2, 2}, {(int64_t{1} << 60) + 1, 2, 3, 4});
  Reduce sum(ReduceKind::Sum, std::vector<int64_t>{1}, false);
  Tensor s = run(sum, {x})[0];
  ASSERT_EQ(s.shape(), Shape{2});
  EXPECT_EQ(s.data<int64_t>()[0], (int64_t{1} << 60) + 3);
  EXPECT_EQ(s.data<int64_t>()[1], 7);
  Reduce mean(ReduceKind::Mean, std::vector<int64_t>{0}, false);
  Tensor y = Tensor::from_vector<int32_t>({2, 2}, {1, 2, 4, 5});
  expect_values<int32_t>(run(mean, {y})[0], {2}, {2, 3});
  Reduce mx(ReduceKind::Max, std::vector<int64_t>{0}, false);
  expect_values<int8_t>(run(mx, {Tensor::from_vector<int8_t>({2}, {-128, -5})})[0], {}, {-5});
  // int64 sums and products past the type wrap like two's complement (UBSan: fuzz finding 28).
  EXPECT_EQ(
      run(sum, {Tensor::from_vector<int64_t>({1, 2}, {INT64_MAX, 4096})})[0].data<int64_t>()[0],
      INT64_MIN + 4095);
  Reduce prod(ReduceKind::Prod, std::vector<int64_t>{0}, false);
  EXPECT_EQ(
      run(prod, {Tensor::from_vector<int64_t>({2}, {int64_t{1} << 62, 4})})[0].data<int64_t>()[0],
      0);  // 2^64 wraps to 0
  Reduce l1(ReduceKind::L1, std::vector<int64_t>{0}, false);
  EXPECT_EQ(run(l1, {Tensor::from_vector<int64_t>({2}, {INT64_MIN, -3})})[0].data<int64_t>()[0],
            INT64_MIN + 3);  // |INT64_MIN| wraps to itself
  // An empty input whose kept dims multiply past int64 is an error, not an overflow.
  Tensor empty(DatumType::F32, {0, int64_t{1} << 62, 3});
  Reduce over0(ReduceKind::Sum, std::vector<int64_t>{0}, true);
  EXPECT_THROW(run(over0, {empty}), Error);
}

TEST(ReduceOp, HalfFloats) {
  Tensor x = Tensor::from_vector<f16>({3}, {f16(1.5f), f16(2.5f), f16(-1.0f)});
  Reduce op(ReduceKind::Sum, std::vector<int64_t>{0}, false);
  Tensor y = run(op, {x})[0];
  EXPECT_EQ(y.dtype(), DatumType::F16);
  EXPECT_FLOAT_EQ(static_cast<float>(y.data<f16>()[0]), 3.0f);
}

TEST(ReduceOp, SymbolicFacts) {
  Dim n = Dim::symbol("N"), s = Dim::symbol("S");
  Fact x(DatumType::F32, std::vector<Dim>{n, s, 4});
  Reduce keep(ReduceKind::Mean, std::vector<int64_t>{-1}, true);
  auto out = facts(keep, {x});
  EXPECT_EQ(out[0].shape, (std::vector<Dim>{n, s, 1}));
  Reduce drop(ReduceKind::Mean, std::vector<int64_t>{1}, false);
  EXPECT_EQ(facts(drop, {x})[0].shape, (std::vector<Dim>{n, 4}));
  // Constant axes input.
  Reduce from_input(ReduceKind::Sum, std::nullopt, false);
  EXPECT_EQ(facts(from_input, {x, Fact::constant(i64({2}, {0, 2}))})[0].shape,
            (std::vector<Dim>{s}));
  // Runtime axes with keepdims: rank known, dims unknown (but 1 stays 1).
  Fact axes(DatumType::I64, std::vector<Dim>{Dim::symbol("K")});
  Reduce keep_input(ReduceKind::Sum, std::nullopt, true);
  auto k = facts(keep_input, {Fact(DatumType::F32, std::vector<Dim>{n, 1}), axes});
  ASSERT_EQ(k[0].rank(), 2u);
  EXPECT_EQ(k[0].shape[1], Dim(1));
  // Runtime axes without keepdims: rank known only from the number of axes.
  Fact two_axes(DatumType::I64, std::vector<Dim>{2});
  EXPECT_EQ(facts(from_input, {x, two_axes})[0].rank(), 1u);
  EXPECT_THROW(facts(from_input, {x, axes}), Error);
}

TEST(ReduceOp, BadInputsThrow) {
  Reduce op(ReduceKind::Sum, std::vector<int64_t>{2}, true);
  EXPECT_THROW(run(op, {sample()}), Error);
  EXPECT_THROW(facts(op, {Fact(DatumType::F32, Shape{2, 3})}), Error);
  Reduce dup(ReduceKind::Sum, std::vector<int64_t>{1, -1}, true);
  EXPECT_THROW(facts(dup, {Fact(DatumType::F32, Shape{2, 3})}), Error);
  Reduce ok(ReduceKind::Sum, std::vector<int64_t>{0}, true);
  EXPECT_THROW(facts(ok, {Fact(DatumType::String, Shape{2})}), Error);
}

TEST(ReduceOp, Cost) {
  Fact x(DatumType::F32, std::vector<Dim>{Dim::symbol("S"), 4});
  FactRefs refs{&x};
  Reduce lse(ReduceKind::LogSumExp, std::vector<int64_t>{1}, false);
  EXPECT_EQ(lse.cost(refs).other, Dim::symbol("S") * Dim(5));
  Reduce sum(ReduceKind::Sum, std::vector<int64_t>{1}, false);
  EXPECT_TRUE(sum.cost(refs).known);
  EXPECT_EQ(sum.cost(refs).other, Dim(0));
}

}  // namespace
}  // namespace kiln

namespace kiln {
namespace {

// f32 reductions over one run of consecutive axes take tight loops (rows when the run is last,
// columns otherwise); the f64 form of the same input takes the general loop. Their results agree:
// Max / Min bit for bit (NaN and signed zeros included: a NaN sends Max / Min back to the general
// loop), sums to within one f32 rounding (both sum in double, in different orders).
TEST(ReduceOp, ConsecutiveAxesLikeTheGeneralLoop) {
  std::mt19937 rng(17);
  const ReduceKind kinds[] = {ReduceKind::Sum,       ReduceKind::Mean, ReduceKind::Max,
                              ReduceKind::Min,       ReduceKind::L2,   ReduceKind::SumSquare,
                              ReduceKind::LogSumExp, ReduceKind::Prod};
  for (int round = 0; round < 300; round++) {
    const size_t rank = 1 + rng() % 4;
    Shape shape(rank);
    for (auto& d : shape) d = 1 + static_cast<int64_t>(rng() % 9);
    if (round % 10 == 0) shape.back() = 300;  // long rows
    const size_t first = rng() % rank, count = 1 + rng() % (rank - first);
    std::vector<int64_t> axes;
    for (size_t a = first; a < first + count; a++) axes.push_back(static_cast<int64_t>(a));
    if (round % 7 == 0 && rank >= 3) axes = {0, 2};  // not one run: the general loop
    Tensor x(DatumType::F32, shape);
    std::uniform_real_distribution<float> u(-4, 4);
    float* p = x.data<float>();
    for (int64_t i = 0; i < x.numel(); i++) p[i] = u(rng);
    if (round % 5 == 1) p[rng() % x.numel()] = std::numeric_limits<float>::quiet_NaN();
    if (round % 5 == 2) p[rng() % x.numel()] = -kInf;
    if (round % 5 == 3) p[rng() % x.numel()] = -0.0f;
    const Tensor xd = x.cast_to(DatumType::F64);
    for (ReduceKind kind : kinds) {
      for (bool keep : {false, true}) {
        Reduce op(kind, axes, keep);
        const Tensor got = run(op, {x})[0];
        const Tensor want = run(op, {xd})[0].cast_to(DatumType::F32);
        ASSERT_EQ(got.shape(), want.shape()) << round;
        for (int64_t i = 0; i < got.numel(); i++) {
          const float g = got.data<float>()[i], w = want.data<float>()[i];
          if (std::isnan(w)) {
            EXPECT_TRUE(std::isnan(g)) << round << " " << ops::reduce_kind_name(kind);
          } else if (kind == ReduceKind::Max || kind == ReduceKind::Min || std::isinf(w)) {
            EXPECT_EQ(std::memcmp(&g, &w, sizeof g), 0)
                << round << " " << ops::reduce_kind_name(kind) << " " << g << " " << w;
          } else {
            EXPECT_NEAR(g, w, 1e-6 * std::max(1.0f, std::fabs(w)))
                << round << " " << ops::reduce_kind_name(kind);
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace kiln
