// Max pooling of 8-bit planes (u8 / i8, NCHW), portable C++: the int8 MaxPool of quantized models
// (passes/quant_ops moves a QuantizeLinear above a MaxPool: quantization is monotonic, so the max
// of the quantized values is the quantized max, exactly). Separable like the f32 kernel
// (kernels/pool/pool.h): per output row the column maxima of the window rows inside the input
// (contiguous byte maxima the compiler vectorizes), then the max along the row over each window's
// columns inside the input. A window entirely in the padding gives the type's lowest value (as the
// reference MaxPool).
#pragma once

#include <cstdint>

#include "kernels/pool/pool.h"

namespace kiln::kernels {

// Bytes of scratch past a row the kernels use (vector reads).
constexpr int64_t kQ8RowPad = 32;

// y (planes x out_h x out_w) = max pool of x (planes x in_h x in_w); `row`: in_w + kQ8RowPad
// bytes of scratch.
void max_pool_2d_u8(const uint8_t* x, uint8_t* y, int64_t planes, const MaxPool2dGeometry& g,
                    uint8_t* row);
void max_pool_2d_i8(const int8_t* x, int8_t* y, int64_t planes, const MaxPool2dGeometry& g,
                    int8_t* row);

}  // namespace kiln::kernels
