// Helpers for the reduce-family op tests: run an op on tensors, compute its facts.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/op.h"

namespace kiln::reduce_test {

inline std::vector<Tensor> run(const Op& op, const std::vector<Tensor>& inputs,
                               size_t num_outputs = 1) {
  std::vector<Tensor> outputs(num_outputs);
  EvalContext ctx(outputs);
  TensorRefs refs;
  for (const Tensor& t : inputs) refs.push_back(t.is_null() ? nullptr : &t);
  op.eval(ctx, refs);
  return outputs;
}

inline std::vector<Fact> facts(const Op& op, const std::vector<Fact>& inputs) {
  FactRefs refs;
  for (const Fact& f : inputs) refs.push_back(&f);
  return op.output_facts(refs);
}

inline std::vector<Fact> facts(const Op& op, const FactRefs& refs) {
  return op.output_facts(refs);
}

template <typename T>
void expect_values(const Tensor& t, const Shape& shape, const std::vector<T>& expected,
                   double tol = 1e-5) {
  ASSERT_EQ(t.shape(), shape);
  ASSERT_EQ(t.dtype(), datum_type_of<T>);
  ASSERT_EQ(static_cast<size_t>(t.numel()), expected.size());
  for (size_t i = 0; i < expected.size(); i++) {
    double got = t.value_as_double(static_cast<int64_t>(i));
    double want = static_cast<double>(expected[i]);
    if (std::isinf(want) || std::isnan(want)) {
      if (std::isnan(want))
        EXPECT_TRUE(std::isnan(got)) << "at " << i;
      else
        EXPECT_EQ(got, want) << "at " << i;
    } else {
      EXPECT_NEAR(got, want, tol) << "at " << i;
    }
  }
}

inline Tensor f32(Shape shape, std::vector<float> v) {
  return Tensor::from_vector<float>(std::move(shape), v);
}
inline Tensor i64(Shape shape, std::vector<int64_t> v) {
  return Tensor::from_vector<int64_t>(std::move(shape), v);
}

}  // namespace kiln::reduce_test
