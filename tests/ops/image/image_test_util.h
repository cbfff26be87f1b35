// Helpers for the image and quantization op tests: evaluate an op on tensors, facts of shapes.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "core/op.h"

namespace kiln::image_test {

// Evaluates `op` on the inputs (null tensors stand for absent optional inputs).
inline std::vector<Tensor> run(const Op& op, const std::vector<Tensor>& inputs,
                               size_t num_outputs = 1) {
  TensorRefs refs;
  for (const Tensor& t : inputs) refs.push_back(t.is_null() ? nullptr : &t);
  std::vector<Tensor> outputs(num_outputs);
  EvalContext ctx(outputs);
  op.eval(ctx, refs);
  return outputs;
}

inline std::vector<Fact> facts(const Op& op, const std::vector<const Fact*>& inputs) {
  return op.output_facts(inputs);
}

template <typename T>
std::vector<T> values(const Tensor& t) {
  auto v = t.values<T>();
  return {v.begin(), v.end()};
}

inline void expect_near(const Tensor& t, const std::vector<float>& expected, float tol = 1e-5f) {
  ASSERT_EQ(t.numel(), static_cast<int64_t>(expected.size())) << t.to_string();
  for (size_t i = 0; i < expected.size(); i++)
    EXPECT_NEAR(t.value_as_double(static_cast<int64_t>(i)), expected[i], tol) << "element " << i;
}

}  // namespace kiln::image_test
