// fold-transpose-matmul: Transposes around a MatMulDynamic become its layout (strided reads and
// writes), with results equal to the Transpose + MatMul graph's.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "../ops/nn/nn_test_util.h"
#include "base/error.h"
#include "base/threading.h"
#include "ops/nn/matmul.h"
#include "ops/nn/matmul_dynamic.h"
#include "ops/shape/transpose.h"
#include "pass_test_util.h"
#include "passes/pipeline.h"

namespace kiln {
namespace {

using testing::compute_ops;
using testing::random_tensor;

std::string shape_fact(const Shape& s) {
  std::string out;
  for (int64_t d : s) out += std::to_string(d) + ",";
  return out + "f32";
}

// x such that Transpose(x, perm) has shape `eff`: x[perm[d]] = eff[d].
Shape source_shape(const Shape& eff, const std::vector<int64_t>& perm) {
  if (perm.empty()) return eff;
  Shape x(eff.size());
  for (size_t d = 0; d < eff.size(); d++) x[static_cast<size_t>(perm[d])] = eff[d];
  return x;
}

struct Case {
  Shape batch;
  int64_t m, k, n;
  std::vector<int64_t> a, b, y;  // Transposes before A, before B, after the product ({}: none)
  bool bias = false;
};

// Builds Transpose?(a) @ Transpose?(b) (+ bias) -> Transpose?, optimizes it, and checks the
// optimized graph against the unoptimized one at 1 and 2 threads (bitwise equal between them).
void check(const Case& c, const std::string& expect_ops, unsigned seed) {
  Shape ea = c.batch, eb = c.batch;
  ea.insert(ea.end(), {c.m, c.k});
  eb.insert(eb.end(), {c.k, c.n});
  Shape xa = source_shape(ea, c.a), xb = source_shape(eb, c.b);
  Graph g;
  Outlet a = g.add_source("a", Fact::parse(shape_fact(xa)));
  Outlet b = g.add_source("b", Fact::parse(shape_fact(xb)));
  if (!c.a.empty()) a = {g.add_node("ta", std::make_shared<ops::Transpose>(c.a), {a}), 0};
  if (!c.b.empty()) b = {g.add_node("tb", std::make_shared<ops::Transpose>(c.b), {b}), 0};
  std::vector<Outlet> mm_in = {a, b};
  if (c.bias) mm_in.push_back(g.add_const("bias", random_tensor({c.n}, seed + 7)));
  Outlet y = {g.add_node("mm", std::make_shared<ops::MatMul>(), mm_in), 0};
  if (!c.y.empty()) y = {g.add_node("ty", std::make_shared<ops::Transpose>(c.y), {y}), 0};
  g.set_outputs({y}, {"y"});
  g.analyse();
  Graph before = g;
  passes::optimize_passes().run(g);
  EXPECT_EQ(compute_ops(g), expect_ops);
  std::vector<Tensor> in = {random_tensor(xa, seed), random_tensor(xb, seed + 1)};
  auto want = testing::run(before, in);
  set_num_threads(1);
  auto one = testing::run(g, in);
  set_num_threads(2);
  auto two = testing::run(g, in);
  set_num_threads(0);
  ASSERT_EQ(one.size(), 1u);
  ASSERT_EQ(one[0].shape(), want[0].shape());
  // The packed product sums k terms in another order than the reference: float rounding of
  // k <= 70 products of values in [-1, 1) stays far below 1e-5 relative + 1e-5 absolute.
  auto r = compare_tensors(one[0], want[0], 1e-5, 1e-5);
  EXPECT_TRUE(r.ok) << r.summary();
  ASSERT_EQ(two[0].shape(), one[0].shape());
  EXPECT_TRUE(
      std::equal(one[0].data<float>(), one[0].data<float>() + one[0].numel(), two[0].data<float>()))
      << "the result depends on the thread count";
}

TEST(FoldTransposeMatMul, AttentionHeads) {
  // Q [tokens, heads, d] -> [heads, tokens, d]; K -> [heads, d, tokens]; result back to
  // [tokens, heads, tokens]. Odd sizes so edge tiles and strides matter.
  Case scores{{3}, 7, 5, 9, {1, 0, 2}, {1, 2, 0}, {}};
  check(scores, "MatMulDynamic", 1);
  Case values{{3}, 7, 9, 5, {}, {1, 0, 2}, {1, 0, 2}};
  check(values, "MatMulDynamic", 2);
  Case all{{4}, 20, 17, 33, {1, 0, 2}, {1, 2, 0}, {1, 0, 2}, true};
  check(all, "MatMulDynamic", 3);
}

TEST(FoldTransposeMatMul, RandomPermutationsOfRank3And4) {
  std::mt19937 rng(5);
  auto random_perm = [&](size_t rank) {
    std::vector<int64_t> p(rank);
    std::iota(p.begin(), p.end(), 0);
    std::shuffle(p.begin(), p.end(), rng);
    return p;
  };
  for (int trial = 0; trial < 40; trial++) {
    size_t rank = 3 + trial % 2;
    Case c;
    for (size_t d = 0; d + 2 < rank; d++) c.batch.push_back(1 + static_cast<int64_t>(rng() % 4));
    c.m = 1 + rng() % 19;
    c.k = 1 + rng() % 23;
    c.n = 1 + rng() % 37;
    c.a = random_perm(rank);
    c.b = random_perm(rank);
    std::vector<int64_t> y = random_perm(rank - 1);
    y.push_back(static_cast<int64_t>(rank - 1));  // the last axis stays last: foldable
    c.y = y;
    c.bias = trial % 3 == 0;
    auto identity = [](const std::vector<int64_t>& p) {
      for (size_t i = 0; i < p.size(); i++)
        if (p[i] != static_cast<int64_t>(i)) return false;
      return true;
    };
    // Identity transposes are removed elsewhere; here every Transpose must be folded away.
    if (identity(c.a)) c.a.clear();
    if (identity(c.b)) c.b.clear();
    if (identity(c.y)) c.y.clear();
    SCOPED_TRACE(trial);
    check(c, "MatMulDynamic", 100 + trial);
  }
}

TEST(FoldTransposeMatMul, KeepsWhatItCannotFold) {
  // The output transpose moves the last axis: columns would not be contiguous.
  Case c{{2}, 5, 4, 6, {1, 0, 2}, {}, {0, 2, 1}};
  check(c, "MatMulDynamic Transpose", 11);
}

TEST(FoldTransposeMatMul, TransposeWithAnotherReaderStays) {
  Graph g;
  Outlet a = g.add_source("a", Fact::parse("4,2,3,f32"));
  Outlet b = g.add_source("b", Fact::parse("2,3,5,f32"));
  int ta = g.add_node("ta", std::make_shared<ops::Transpose>(std::vector<int64_t>{1, 0, 2}), {a});
  int mm = g.add_node("mm", std::make_shared<ops::MatMul>(), {{ta, 0}, b});
  g.set_outputs({{mm, 0}, {ta, 0}}, {"y", "t"});
  g.analyse();
  Graph before = g;
  passes::optimize_passes().run(g);
  EXPECT_EQ(compute_ops(g), "Transpose MatMulDynamic");
  testing::expect_same_outputs(
      before, g, {random_tensor({4, 2, 3}, 1), random_tensor({2, 3, 5}, 2)}, 1e-5, 1e-5);
}

TEST(FoldTransposeMatMul, LayoutIsChecked) {
  auto ref = std::make_shared<ops::MatMul>();
  EXPECT_THROW(ops::MatMulDynamic(ref, {{1, 1, 0}, {}, {}}), Error);  // not a permutation
  EXPECT_THROW(ops::MatMulDynamic(ref, {{}, {}, {0, 2, 1}}), Error);  // last axis moves
  // Run-time operands that no longer fit the layout are refused, never misread.
  ops::MatMulDynamic op(ref, {{1, 0, 2}, {}, {}});
  Tensor a = random_tensor({4, 2, 3}, 1), b = random_tensor({3, 3, 5}, 2);
  EXPECT_THROW(testing::run_op(op, {a, b}), Error);
}

}  // namespace
}  // namespace kiln
