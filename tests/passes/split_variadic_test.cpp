// split-variadic: the chains of two-input ops give the variadic reference's bits (f32, left to
// right, Mean's one division at the end), through the optimize stage's vectorized kernels, with
// broadcasting and NaNs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "ops/elementwise/variadic.h"
#include "passes/pipeline.h"
#include "passes/split_variadic.h"
#include "tests/passes/pass_test_util.h"

namespace kiln::testing {
namespace {

using ops::Variadic;
using ops::VariadicKind;

TEST(SplitVariadic, ChainsGiveTheReferenceBits) {
  // a full, b a trailing block (a bias), c a value per row, d a scalar, e another full input:
  // every broadcast BinaryF32 takes, and one it leaves to the reference (b then c).
  const Shape shapes[] = {{4, 33}, {33}, {4, 1}, {1}, {4, 33}};
  const VariadicKind kinds[] = {VariadicKind::Sum, VariadicKind::Mean, VariadicKind::Max,
                                VariadicKind::Min};
  const std::vector<std::vector<int>> orders = {{0, 1, 2}, {1, 2, 0}, {0, 4, 3, 1, 2}, {3, 0}};
  for (VariadicKind kind : kinds) {
    for (const auto& order : orders) {
      Graph g;
      std::vector<Outlet> sources;
      for (size_t i = 0; i < std::size(shapes); i++) {
        std::string fact;
        for (int64_t d : shapes[i]) fact += std::to_string(d) + ",";
        sources.push_back(g.add_source("x" + std::to_string(i), Fact::parse(fact + "f32")));
      }
      std::vector<Outlet> in;
      for (int i : order) in.push_back(sources[static_cast<size_t>(i)]);
      const int v = g.add_node("v", std::make_shared<Variadic>(kind), in);
      g.set_outputs({{v, 0}}, {"v"});
      g.analyse();
      Graph before = g;
      const bool two_minmax =
          order.size() == 2 && (kind == VariadicKind::Max || kind == VariadicKind::Min);
      EXPECT_EQ(passes::SplitVariadic().run(g) > 0, !two_minmax);  // MinMaxF32 takes those
      passes::optimize(g);
      std::vector<Tensor> inputs;
      for (size_t i = 0; i < std::size(shapes); i++) {
        // Values of very different sizes, so the order of the sums shows in the bits.
        Tensor t = random_tensor(shapes[i], unsigned(40 + i), -1, 1);
        float* p = t.data<float>();
        for (int64_t j = 0; j < t.numel(); j++) p[j] *= std::ldexp(1.0f, int(j % 7) * 6 - 18);
        if (i == 0) p[5] = std::numeric_limits<float>::quiet_NaN();
        inputs.push_back(std::move(t));
      }
      const Tensor want = run(before, inputs)[0];
      const Tensor got = run(g, inputs)[0];
      ASSERT_EQ(got.shape(), want.shape());
      for (int64_t j = 0; j < want.numel(); j++) {
        const float a = want.data<float>()[j], b = got.data<float>()[j];
        if (std::isnan(a)) {
          EXPECT_TRUE(std::isnan(b)) << j;
        } else {
          EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0)
              << before.node(v).op->name() << " at " << j << ": " << a << " vs " << b;
        }
      }
    }
  }
}

}  // namespace
}  // namespace kiln::testing
