// Helpers for the shape op tests: run one op on tensors, build small tensors.
#pragma once

#include <gtest/gtest.h>

#include "core/op.h"

namespace kiln::test {

inline std::vector<Tensor> eval_op(const Op& op, const std::vector<Tensor>& inputs,
                                   size_t outputs = 1) {
  TensorRefs refs;
  for (const auto& t : inputs) refs.push_back(t.is_null() ? nullptr : &t);
  std::vector<Tensor> outs(outputs);
  EvalContext ctx(outs);
  op.eval(ctx, refs);
  return outs;
}

inline std::vector<Fact> facts_of(const Op& op, const std::vector<Fact>& inputs) {
  FactRefs refs;
  for (const auto& f : inputs) refs.push_back(&f);
  return op.output_facts(refs);
}

inline Tensor i64s(std::vector<int64_t> v) {
  return Tensor::from_vector<int64_t>({static_cast<int64_t>(v.size())}, v);
}

inline Tensor f32s(Shape shape, std::vector<float> v) {
  return Tensor::from_vector<float>(std::move(shape), v);
}

// 0, 1, 2, ... as f32 of that shape.
inline Tensor iota(Shape shape) {
  Tensor t(DatumType::F32, std::move(shape));
  for (int64_t i = 0; i < t.numel(); i++) t.data<float>()[i] = static_cast<float>(i);
  return t;
}

inline std::vector<float> values(const Tensor& t) {
  auto v = t.values<float>();
  return {v.begin(), v.end()};
}

}  // namespace kiln::test
