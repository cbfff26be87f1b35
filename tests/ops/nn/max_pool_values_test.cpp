// MaxPoolValues vs the reference MaxPool's values output (exact: max is order-independent).
#include <gtest/gtest.h>

#include <random>

#include "ops/nn/max_pool_values.h"
#include "tests/ops/nn/nn_test_util.h"

namespace kiln {
namespace {

using kiln::testing::fact_refs;
using kiln::testing::run_op;

TEST(OpsMaxPoolValues, MatchesReferenceValues) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> d(-1, 1);
  struct P {
    Shape x;
    std::vector<int64_t> kernel, strides, pads;
    bool ceil;
  };
  std::vector<P> params = {{{1, 3, 11, 11}, {3, 3}, {2, 2}, {0, 0, 0, 0}, true},
                           {{2, 2, 9, 8}, {3, 3}, {1, 1}, {1, 1, 1, 1}, false},
                           {{1, 1, 7, 9}, {2, 3}, {2, 1}, {0, 1, 1, 0}, true},
                           {{1, 4, 13}, {3}, {2}, {1, 1}, false},
                           {{1, 1, 1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, false}};
  for (const P& p : params) {
    ops::WindowGeometry g;
    g.kernel = p.kernel;
    g.strides = p.strides;
    g.pads = p.pads;
    g.ceil_mode = p.ceil;
    auto pool = std::make_shared<ops::Pool>(ops::PoolKind::Max, g, ops::Pool::Options{});
    std::vector<float> v(static_cast<size_t>(shape_numel(p.x)));
    for (auto& e : v) e = d(rng);
    Tensor x = Tensor::from_vector<float>(p.x, v);
    std::vector<Fact> facts = {Fact(DatumType::F32, p.x)};
    ASSERT_TRUE(ops::MaxPoolValues::supports(*pool, facts[0]));
    ops::MaxPoolValues fast(pool);
    EXPECT_EQ(fast.output_facts(fact_refs(facts)).size(), 1u);
    auto want = run_op(*pool, {x}, 2);
    auto got = run_op(fast, {x}, 1);
    ASSERT_EQ(got[0].shape(), want[0].shape());
    for (int64_t i = 0; i < got[0].numel(); i++) {
      ASSERT_EQ(got[0].data<float>()[i], want[0].data<float>()[i]) << i;
    }
  }
}

// Random 2-D shapes: kernels 1..4 per axis (so the fixed-width 3/s2, 3/s1, 2/s2 row loops and the
// generic one all run), strides 1..3, pads below the kernel, floor and ceil mode, rows 1..20 wide
// (windows at both borders and rows with no interior window). Exact equality: max is exact.
TEST(OpsMaxPoolValues, RandomShapesMatchReference) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> d(-1, 1);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (int iter = 0; iter < 200; iter++) {
    ops::WindowGeometry g;
    Shape x_shape = {pick(1, 2), pick(1, 3), pick(1, 20), pick(1, 20)};
    g.kernel = {pick(1, 4), pick(1, 4)};
    if (pick(0, 1)) g.kernel[1] = 3;
    g.strides = {pick(1, 3), pick(1, 3)};
    if (pick(0, 1)) g.strides[1] = 2;
    g.pads = {pick(0, g.kernel[0] - 1), pick(0, g.kernel[1] - 1), pick(0, g.kernel[0] - 1),
              pick(0, g.kernel[1] - 1)};
    g.ceil_mode = pick(0, 1);
    if (x_shape[2] + g.pads[0] + g.pads[2] < g.kernel[0] ||
        x_shape[3] + g.pads[1] + g.pads[3] < g.kernel[1]) {
      continue;
    }
    auto pool = std::make_shared<ops::Pool>(ops::PoolKind::Max, g, ops::Pool::Options{});
    std::vector<float> v(static_cast<size_t>(shape_numel(x_shape)));
    for (auto& e : v) e = d(rng);
    Tensor x = Tensor::from_vector<float>(x_shape, v);
    ops::MaxPoolValues fast(pool);
    auto want = run_op(*pool, {x}, 2);
    auto got = run_op(fast, {x}, 1);
    ASSERT_EQ(got[0].shape(), want[0].shape());
    for (int64_t i = 0; i < got[0].numel(); i++) {
      ASSERT_EQ(got[0].data<float>()[i], want[0].data<float>()[i])
          << i << " in " << shape_to_string(x_shape) << " k " << g.kernel[0] << "x" << g.kernel[1]
          << " s " << g.strides[0] << "," << g.strides[1] << " ceil " << g.ceil_mode;
    }
  }
}

}  // namespace
}  // namespace kiln
