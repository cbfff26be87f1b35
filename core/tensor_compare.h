// Comparing a computed tensor with a reference: relative + absolute tolerance for floats,
// exact for integers, bools and strings; NaN equals NaN.
#pragma once

#include <string>

#include "core/tensor.h"

namespace kiln {

struct CompareResult {
  bool ok = true;
  std::string reason;           // why not ok (type/shape mismatch, values), empty when ok
  double max_abs_error = 0.0;   // over all elements
  Shape max_error_index;        // where the largest error is
  int64_t mismatches = 0;       // elements outside tolerance
  std::string summary() const;  // one line for reports
};

// Element i matches when |a - e| <= atol + rtol * |e| (floats); exactly otherwise.
CompareResult compare_tensors(const Tensor& actual, const Tensor& expected, double rtol = 1e-4,
                              double atol = 1e-5);

}  // namespace kiln
