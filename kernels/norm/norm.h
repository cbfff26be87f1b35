// Vectorized f32 row kernels of transformer blocks: softmax / log-softmax and layer
// normalization over contiguous rows, and GELU (erf and tanh forms), compiled once per ISA from
// one source (norm_impl.h) and dispatched on kernels::active_isa(), like kernels/elementwise.
//
// Accuracy (tested in tests/kernels/norm_test.cpp against double references):
//   softmax:     |rel err| <= 4e-7 (exp, see vec_math.h) + ceil(n / lanes) * 2^-24 (the row sum,
//                kept in one accumulator per vector lane) + 2^-24 (the final product); over an
//                inner axis (softmax_axis), n 2^-24 for its n terms per column.
//   log_softmax: |abs err| <= 2^-24 * (|x - max| + |log sum|) + the sum's relative error.
//   layer_norm:  mean and variance summed in float, one accumulator per lane (two passes, so no
//                cancellation from E[x^2] - E[x]^2): relative error of the statistics
//                <= ceil(n / lanes) * 2^-24, times |normalized value| in the output.
//   gelu:        0.5 x (1 + erf(x / sqrt 2)): |abs err| <= 5e-7 * 0.5 |x| + 2^-24 |y|.
//   gelu_tanh:   0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))): |abs err| <= 6e-7 * 0.5 |x| +
//                2^-24 |y|.
#pragma once

#include <cstdint>

#include "kernels/mmm/mmm.h"

namespace kiln::kernels {

struct NormKernels {
  // y[r, :] = softmax(x[r, :]) (or log-softmax when `log`) for rows r < rows of n floats; y may
  // alias x.
  void (*softmax)(const float* x, float* y, int64_t rows, int64_t n, bool log);
  // y[r, :] = (x[r, :] - mean) / sqrt(var + eps) * gamma + beta over rows of n floats; gamma
  // and beta have n values (beta may be null); mean / inv_std (one per row) may be null.
  void (*layer_norm)(const float* x, const float* gamma, const float* beta, float eps, float* y,
                     float* mean, float* inv_std, int64_t rows, int64_t n);
  // y = gelu(x) element-wise, n values; `tanh_form` picks the tanh approximation.
  void (*gelu)(const float* x, float* y, int64_t n, bool tanh_form);
  // Softmax (log-softmax) over the first axis of a [len, inner] block (an axis that is not the
  // last: the channels of NCHW, YOLOv8's box bins), columns [j0, j1) only; y may alias x. The
  // lanes run along inner, each summing its own column (errors as softmax's with n = len).
  void (*softmax_axis)(const float* x, float* y, int64_t len, int64_t inner, int64_t j0, int64_t j1,
                       bool log);
};

// The kernels of an ISA (every ISA has them; generic is portable C++).
const NormKernels& norm_kernels(Isa isa);
// The kernels of active_isa().
const NormKernels& norm_kernels();

NormKernels norm_kernels_generic();
#if defined(__x86_64__)
NormKernels norm_kernels_avx2();
NormKernels norm_kernels_avx512();
#endif
#if defined(__aarch64__) || defined(__arm__)
NormKernels norm_kernels_neon();
#endif

}  // namespace kiln::kernels
