// The scatter half of a transposed convolution: the product of the weights with the input gives,
// for every (output channel, kernel offset) row r and every input position i, one value
// cols[r * ld + i]; each lands on the output position that the kernel offset maps i to:
//   y[c][o] += cols[(c * kernel + k)][i],  o = i * stride - pad + k * dilation (per axis),
// the positions outside the output dropped. Output planes start at the bias. Channels are split
// over the pool (each thread owns whole planes: no two threads write one value, and each value's
// sum is in the same order whatever the thread count).
#pragma once

#include <cstdint>

#include "kernels/conv/conv_geometry.h"

namespace kiln::kernels {

// cols: [channels * kernel volume][ld] (row r = c * volume + kernel offset; ld >= in positions);
// y: `channels` planes of the output size; bias: `channels` values or null.
void col2im_f32(const float* cols, int64_t ld, int64_t channels, const ConvGeometry& g,
                const float* bias, float* y);

}  // namespace kiln::kernels
