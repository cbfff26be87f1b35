// The optional residual input of the packed ops (ConvPacked, MatMulPacked; set by fuse-residual):
// one more node input, added in the kernel epilogue, that the reference op does not take.
#pragma once

#include <string>

#include "core/error.h"
#include "core/op.h"

namespace kiln::ops {

// `inputs` without input `residual` (< 0: none).
inline FactRefs without_residual(const FactRefs& inputs, long residual) {
  FactRefs out = inputs;
  if (residual >= 0 && static_cast<size_t>(residual) < out.size())
    out.erase(out.begin() + residual);
  return out;
}

// Checks that input `residual` (if any) has the output's type and shape.
inline void check_residual(const FactRefs& inputs, long residual, const Fact& out,
                           const std::string& op) {
  if (residual < 0) return;
  const Fact& r = required(inputs, static_cast<size_t>(residual), op);
  KILN_ENSURE(r.same_type_and_shape(out), "{}: residual {} does not match output {}", op,
              r.to_string(), out.to_string());
}

}  // namespace kiln::ops
