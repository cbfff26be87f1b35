// Helpers for the nn op tests: run an op on tensors, compare float outputs.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/op.h"

namespace kiln::testing {

inline std::vector<Tensor> run_op(const Op& op, const std::vector<Tensor>& inputs,
                                  size_t num_outputs = 1, std::vector<bool> absent = {}) {
  TensorRefs refs;
  for (size_t i = 0; i < inputs.size(); i++) {
    bool skip = i < absent.size() && absent[i];
    refs.push_back(skip ? nullptr : &inputs[i]);
  }
  std::vector<Tensor> outputs(num_outputs);
  EvalContext ctx(outputs);
  op.eval(ctx, refs);
  return outputs;
}

inline FactRefs fact_refs(const std::vector<Fact>& facts) {
  FactRefs refs;
  for (const Fact& f : facts) refs.push_back(&f);
  return refs;
}

inline std::vector<float> arange_f(int64_t n, float scale = 1.0f, float offset = 0.0f) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; i++)
    v[static_cast<size_t>(i)] = static_cast<float>(i) * scale + offset;
  return v;
}

inline void expect_close(const Tensor& t, const std::vector<float>& expected, float tol = 1e-5f) {
  ASSERT_EQ(t.numel(), static_cast<int64_t>(expected.size())) << t.to_string();
  for (size_t i = 0; i < expected.size(); i++) {
    EXPECT_NEAR(t.value_as_double(static_cast<int64_t>(i)), expected[i],
                tol * (1 + std::abs(expected[i])))
        << "at " << i;
  }
}

}  // namespace kiln::testing
