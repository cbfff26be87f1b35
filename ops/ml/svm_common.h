// The kernels of the SVM operators (ai.onnx.ml SVMClassifier, SVMRegressor): LINEAR x.v, POLY
// (gamma x.v + coef0)^degree, RBF exp(-gamma |x - v|^2), SIGMOID tanh(gamma x.v + coef0).
#pragma once

#include <string>

namespace kiln::ops::ml {

enum class SvmKernel { Linear, Poly, Rbf, Sigmoid };

struct SvmKernelParams {
  SvmKernel kind = SvmKernel::Linear;
  float gamma = 0, coef0 = 0, degree = 0;
  float operator()(const float* x, const float* v, int64_t n) const;
  bool operator==(const SvmKernelParams&) const = default;
};

SvmKernel parse_svm_kernel(const std::string& text);
const char* svm_kernel_name(SvmKernel k);

}  // namespace kiln::ops::ml
