// Strided copies of plain-old-data elements: gathers a strided view of `src` (Transpose, Slice)
// into a contiguous `dst`. Axes of extent 1 are dropped and axes that are contiguous in the
// source are merged first; then rows contiguous in the source are copied with memcpy, a
// transposed pair of axes (source stride 1 on another axis than the last) is copied in cache
// tiles, and anything else element by element.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kiln::kernels {

// Ranks a copy takes (the axis lists live in fixed arrays: a copy never allocates).
constexpr size_t kMaxCopyRank = 32;

// dst[i] = src[sum_k idx_k(i) * src_strides[k]] for every index i of `shape` (row-major), with
// elements of `elem_size` bytes and strides counted in elements (they may be negative or 0).
// Ranks up to kMaxCopyRank - 1 (an error beyond).
void strided_copy(const void* src, void* dst, size_t elem_size, const int64_t* shape,
                  const int64_t* src_strides, size_t rank);
void strided_copy(const void* src, void* dst, size_t elem_size, const std::vector<int64_t>& shape,
                  const std::vector<int64_t>& src_strides);

}  // namespace kiln::kernels
