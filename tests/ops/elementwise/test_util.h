// Helpers for the element-wise op tests.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "core/op.h"

namespace kiln::ew_test {

inline Tensor eval1(const Op& op, const std::vector<Tensor>& inputs) {
  TensorRefs refs;
  for (const auto& t : inputs) refs.push_back(t.is_null() ? nullptr : &t);
  std::vector<Tensor> outs(1);
  EvalContext ctx(outs);
  op.eval(ctx, refs);
  return outs[0];
}

inline Fact facts1(const Op& op, const std::vector<const Fact*>& inputs) {
  auto out = op.output_facts(inputs);
  EXPECT_EQ(out.size(), 1u);
  return out.at(0);
}

template <typename T>
std::vector<T> vals(const Tensor& t) {
  auto s = t.values<T>();
  return std::vector<T>(s.begin(), s.end());
}

inline std::vector<float> as_floats(const Tensor& t) {
  std::vector<float> out;
  for (int64_t i = 0; i < t.numel(); i++) out.push_back(static_cast<float>(t.value_as_double(i)));
  return out;
}

inline void expect_near(const std::vector<float>& got, const std::vector<float>& want,
                        float tol = 1e-5f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); i++) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

}  // namespace kiln::ew_test
