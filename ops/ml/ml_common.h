// Helpers of the ai.onnx.ml operators: the score post-transforms (NONE, SOFTMAX, LOGISTIC,
// SOFTMAX_ZERO, PROBIT), input rows as float, and string / integer label tensors.
#pragma once

#include <string>
#include <vector>

#include "core/op.h"

namespace kiln::ops::ml {

enum class PostTransform { None, Softmax, Logistic, SoftmaxZero, Probit };

PostTransform parse_post_transform(const std::string& text);
const char* post_transform_name(PostTransform t);

// Applies the transform to one row of scores in place (Logistic and Probit element-wise,
// Softmax over the row; SoftmaxZero leaves zeros out of the sum, as ONNX Runtime does).
void transform_row(PostTransform t, float* row, int64_t n);
float logistic(float v);
// sqrt(2) * erfinv(2p - 1), with the same erfinv approximation as ONNX Runtime (Winitzki,
// a = 0.147), so probit scores agree with it to float rounding.
float probit(float p);

// Input X ([N, C] or [C]) as N rows of C floats.
struct Rows {
  int64_t n = 0, c = 0;
};
Rows rows_of(const Shape& shape, const std::string& op);
Rows rows_of(const std::vector<Dim>& shape, const std::string& op, Dim* n_dim);
// The tensor's values as float (numeric types).
void read_floats(const Tensor& t, float* out);

// Class labels: strings or integers, whichever attribute the model gives.
struct Labels {
  std::vector<std::string> strings;
  std::vector<int64_t> ints;
  bool use_strings() const { return !strings.empty(); }
  size_t size() const { return use_strings() ? strings.size() : ints.size(); }
  DatumType dtype() const { return use_strings() ? DatumType::String : DatumType::I64; }
  // Writes label k (or, past the list, the fallback text / integer) into element i of `out`.
  void write(Tensor& out, int64_t i, size_t k) const;
  bool operator==(const Labels&) const = default;
};

}  // namespace kiln::ops::ml
