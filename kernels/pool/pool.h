// Vectorized f32 pooling kernels on NCHW planes, compiled once per ISA from one source
// (pool_impl.h, GCC vector extensions) and dispatched on kernels::active_isa(), like kernels/norm.
//
// max_pool_2d: the max over each window of a 2-D (or 1-D: in_h = 1) plane, no dilation. Separable:
// per output row, the column maxima of the kernel rows inside the input, then the max along the row
// (strides 1 and 2 in vectors, the stride-2 windows through even / odd lane shuffles). 3x3 stride-2
// windows whose three rows are inside (squeezenet's pools) go straight from the input rows, two
// output rows per pass when the vertical stride is 2 (they share an input row), with in-lane
// shuffles only (AVX2: the lanes of a result are permuted back once per vector). Comparisons
// are `v > best ? v : best` in a fixed order (column max from the window's first row down, then
// from -inf along the row), the same on every ISA: exact, and a NaN is dropped unless it is the
// first row of a window column (then that whole column is dropped), as MaxPoolValues always did.
//
// average_pool_2d: sums in a different order than the reference op's (column sums over the
// window's rows, then along the row: |error| <= (kh + kw) 2^-24 sum |x| / count), then one
// division, as the reference.
//
// average_planes: the mean of each plane, summed in double (several vector accumulators, so the
// order differs from a sequential sum by rounding of doubles only: |error| <= n * 2^-52 * sum |x|,
// far below the final rounding to float).
#pragma once

#include <cstdint>

#include "kernels/mmm/mmm.h"

namespace kiln::kernels {

struct MaxPool2dGeometry {
  int64_t in_h = 1, in_w = 1, out_h = 1, out_w = 1;
  int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1;
  int64_t pad_h = 0, pad_w = 0;  // leading padding (trailing padding follows from out_*)
  // Trailing padding: where an average's count_include_pad stops counting (windows of ceil_mode
  // may reach past it).
  int64_t pad_end_h = 0, pad_end_w = 0;
};

struct PoolKernels {
  // y (planes x out_h x out_w) = max pool of x (planes x in_h x in_w); `row`: in_w + 1 floats
  // of scratch. A window entirely in the padding gives -inf.
  void (*max_pool_2d)(const float* x, float* y, int64_t planes, const MaxPool2dGeometry& g,
                      float* row);
  // y[p] = mean of x[p * n .. p * n + n) for p < planes (n >= 1).
  void (*average_planes)(const float* x, float* y, int64_t planes, int64_t n);
  // y = average pool of x (as max_pool_2d; `row`: in_w + 1 floats of scratch): the sum of each
  // window's values inside the input divided by their count, or with `include_pad` by the count
  // of its positions inside the padded input [-pad, in + pad_end); a window with a count of 0
  // gives NaN. Separable: the column sums of the kernel rows, then window sums along the row.
  void (*average_pool_2d)(const float* x, float* y, int64_t planes, const MaxPool2dGeometry& g,
                          bool include_pad, float* row);
};

// The kernels of an ISA (every ISA has them; generic is portable C++).
const PoolKernels& pool_kernels(Isa isa);
// The kernels of active_isa().
const PoolKernels& pool_kernels();

PoolKernels pool_kernels_generic();
#if defined(__x86_64__)
PoolKernels pool_kernels_avx2();
PoolKernels pool_kernels_avx512();
#endif
#if defined(__aarch64__) || defined(__arm__)
PoolKernels pool_kernels_neon();
#endif

}  // namespace kiln::kernels
