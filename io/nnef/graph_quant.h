// graph.quant: NNEF's quantization file, with the syntax tract reads and writes:
//   "t": zero_point_linear_quantize(zero_point = Z, scale = S, bits = 8, signed = B, symmetric =
//   B); "t": linear_quantize(min = A, max = B, bits = 8);
// Reading (docs/nnef.md): a variable with an entry is its integers behind a DequantizeLinear
// (the int8 passes see the integers); any other tensor with an entry is fake-quantized at that
// point (QuantizeLinear -> DequantizeLinear), the Khronos meaning of the file: the tensor's values
// lie on that grid. Writing (docs/quantization.md): per-tensor DequantizeLinear of integer
// constants become integer variables with an entry, QuantizeLinear -> DequantizeLinear pairs of
// one scale and zero point become `copy` with an entry on its result; per-channel parameters
// stay in kiln's extension fragments.
#pragma once

#include <optional>
#include <string>

#include "core/graph.h"
#include "io/nnef/builder.h"

namespace kiln::nnef {

// Checks one entry: known op, known and required keys of the right kinds, bits 8 / 16 / 32
// (8 for tensors that are not variables), scale > 0 and finite, zero point in range, min < max.
// Throws naming the tensor.
void validate_quantization(const std::string& tensor, const Quantization& q);

// A variable's integers with an entry: Const -> DequantizeLinear (zero_point_linear_quantize),
// or nullopt when the entry needs the float values instead (linear_quantize).
std::optional<Outlet> dequantized_variable(Builder& b, const Tensor& ints, const Quantization& q,
                                           const std::string& label);

// `x` quantized to the entry's grid and back (QuantizeLinear -> DequantizeLinear) when `x` is
// float; integer tensors are returned as they are.
Outlet fake_quantize(Builder& b, Outlet x, const Quantization& q, const std::string& tensor);

// The graph.quant line for a tensor (tract's format; the scale with the digits that read back
// to the same f32).
std::string zero_point_entry(const std::string& tensor, int64_t zero_point, float scale, int bits,
                             bool is_signed);

}  // namespace kiln::nnef
