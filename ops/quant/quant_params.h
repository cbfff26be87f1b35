// How QuantizeLinear / DequantizeLinear parameters (scale, zero point) map onto the elements of
// the tensor they apply to: one value (per tensor), one per index along `axis` (per axis, a 1-D
// parameter), or one per block of `block_size` indices along `axis` (blocked, opset 21: the
// parameter has the tensor's shape with ceil(D / block_size) along the axis). Also the element
// types quantization reaches since opset 19: 16-, 4- and 2-bit integers, float8 and float4.
#pragma once

#include <string>

#include "core/op.h"

namespace kiln::ops::quant {

struct ParamMap {
  enum class Kind { Tensor, Axis, Blocked } kind = Kind::Tensor;
  int64_t inner = 1;     // elements after the axis
  int64_t axis_dim = 1;  // the tensor's dim along the axis
  int64_t count = 1;     // the parameter's dim along the axis
  int64_t block = 1;
  // The parameter's flat index for the tensor's flat element i.
  int64_t index(int64_t i) const {
    switch (kind) {
      case Kind::Tensor:
        return 0;
      case Kind::Axis:
        return (i / inner) % axis_dim;
      case Kind::Blocked: {
        int64_t outer = i / (inner * axis_dim), a = (i / inner) % axis_dim;
        return (outer * count + a / block) * inner + i % inner;
      }
    }
    return 0;
  }
};

// Checks a parameter's fact against the tensor's (shapes known or not).
void check_param(const Fact& x, const Fact& param, int64_t axis, int64_t block_size,
                 const std::string& op, const std::string& what);
ParamMap param_map(const Shape& x, const Shape& param, int64_t axis, int64_t block_size,
                   const std::string& op, const std::string& what);

// Types a quantized tensor (QuantizeLinear's output, DequantizeLinear's input) may have.
bool is_quantized_type_21(DatumType dt);
// The range of an integer quantized type.
double quant_min(DatumType dt);
double quant_max(DatumType dt);

}  // namespace kiln::ops::quant
