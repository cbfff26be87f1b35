// Packed matrix multiply with B read in place: C = epilogue(A * B) where A is packed ahead of
// time (weights) and B is never packed: the micro-kernel's InPlaceTileFn reads each k step's
// columns straight from B (1x1 convolutions: the NCHW input; k x k stride-1 convolutions: a
// zero-padded copy of it, one offset per tap). This saves the copy of every B panel, which costs
// as much as a good part of the products when A has few rows (a conv with few output channels).
//
// Only for kernels with an in-place tile (MicroKernel::in_place); the others use mmm.
#pragma once

#include <cstdint>

#include "kernels/mmm/mmm.h"

namespace kiln::kernels {

// Where B's columns are. C's columns come in segments of `segment` columns (a plain matrix: one
// segment of all n; a convolution: one output row each); column x of segment s reads step kk at
// b[s * segment_stride + x + off[kk]]. A tile never spans two segments, so the offsets only
// need to hold within one.
struct InPlaceB {
  const float* b = nullptr;
  const int64_t* off = nullptr;  // k offsets
  int64_t segment = 0;           // columns per segment (n must be a multiple of it)
  int64_t segment_stride = 0;    // distance in b from one segment's first column to the next's
};

// Whether reading B in place beats packing it for an m-row A of depth k: A has few panels (each
// B column is read by few tiles, so packing it costs a good share of the products) and k is short
// (a tile's B rows, one cache line or two each, stay in L1; from one line per k step on, the
// unaligned loads cost more than packing saves). Measured on AVX2 (kiln_kernels_bench
// mmm_in_place against mmm_packed_a): +5..14% at 16..32 rows and k <= 192, -5..15% beyond.
bool mmm_in_place_pays(const MicroKernel& kernel, int64_t m, int64_t k);

// C = epilogue(A * B): A m x k, prepacked in kernel.mr-row panels (PackedMatrix); B k x n read as
// `b` says; C row-major with row stride ldc. Splits output tiles over up to `threads` threads
// (<= 0: kiln::num_threads()); each output is computed by one thread in a fixed order, so the
// result does not depend on the thread count. kernel.in_place must be set.
void mmm_in_place(const MicroKernel& kernel, int64_t m, int64_t n, int64_t k, const PanelSource& a,
                  const InPlaceB& b, const Epilogue& ep, float* c, int64_t ldc, int threads = 0);

// The same for a plain row-major B (k x n, row stride ldb): B[kk, j] = b[kk * ldb + j].
// `offsets`: scratch for k int64 values.
void mmm_in_place(const MicroKernel& kernel, int64_t m, int64_t n, int64_t k, const PanelSource& a,
                  const float* b, int64_t ldb, const Epilogue& ep, float* c, int64_t ldc,
                  int threads, int64_t* offsets);
// The same with offsets of its own for this call (tests, benchmarks: it allocates).
void mmm_in_place(const MicroKernel& kernel, int64_t m, int64_t n, int64_t k, const PanelSource& a,
                  const float* b, int64_t ldb, const Epilogue& ep, float* c, int64_t ldc,
                  int threads = 0);

}  // namespace kiln::kernels
