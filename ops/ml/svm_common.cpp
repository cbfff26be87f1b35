#include "ops/ml/svm_common.h"

#include <cmath>
#include <cstdint>

#include "base/error.h"

namespace kiln::ops::ml {

SvmKernel parse_svm_kernel(const std::string& text) {
  if (text == "LINEAR") return SvmKernel::Linear;
  if (text == "POLY") return SvmKernel::Poly;
  if (text == "RBF") return SvmKernel::Rbf;
  if (text == "SIGMOID") return SvmKernel::Sigmoid;
  fail("unknown SVM kernel_type '{}' (LINEAR, POLY, RBF or SIGMOID)", text);
}

const char* svm_kernel_name(SvmKernel k) {
  switch (k) {
    case SvmKernel::Linear:
      return "LINEAR";
    case SvmKernel::Poly:
      return "POLY";
    case SvmKernel::Rbf:
      return "RBF";
    case SvmKernel::Sigmoid:
      return "SIGMOID";
  }
  return "?";
}

float SvmKernelParams::operator()(const float* x, const float* v, int64_t n) const {
  if (kind == SvmKernel::Rbf) {
    float sum = 0;
    for (int64_t i = 0; i < n; i++) {
      float d = x[i] - v[i];
      sum += d * d;
    }
    return std::exp(-gamma * sum);
  }
  float dot = 0;
  for (int64_t i = 0; i < n; i++) dot += x[i] * v[i];
  if (kind == SvmKernel::Linear) return dot;
  float z = gamma * dot + coef0;
  if (kind == SvmKernel::Poly) return std::pow(z, degree);
  return std::tanh(z);
}

}  // namespace kiln::ops::ml
