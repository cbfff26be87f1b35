// Helpers for pass tests: build small graphs, run them, compare before/after.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/patch.h"
#include "core/state.h"
#include "core/tensor_compare.h"

namespace kiln::testing {

inline std::vector<Tensor> run(const Graph& g, const std::vector<Tensor>& inputs) {
  return run_graph(std::make_shared<Graph>(g), inputs);
}

// Op names of the compute nodes (not Source/Const), in node order, space-separated.
inline std::string compute_ops(const Graph& g) {
  std::string out;
  for (const auto& n : g.nodes())
    if (!is_source_or_const(n)) out += (out.empty() ? "" : " ") + n.op->name();
  return out;
}

// An f32 tensor of `shape` with values uniform in [lo, hi), reproducible from `seed`.
inline Tensor random_tensor(Shape shape, unsigned seed, float lo = -1, float hi = 1) {
  Tensor t(DatumType::F32, shape);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (int64_t i = 0; i < t.numel(); i++) t.data<float>()[i] = dist(rng);
  return t;
}

inline void expect_same_outputs(const Graph& before, const Graph& after,
                                const std::vector<Tensor>& inputs, double rtol = 1e-6,
                                double atol = 1e-6) {
  auto a = run(before, inputs);
  auto b = run(after, inputs);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); i++) {
    auto r = compare_tensors(b[i], a[i], rtol, atol);
    EXPECT_TRUE(r.ok) << "output " << i << ": " << r.summary();
  }
}

}  // namespace kiln::testing
