// Constant padding (Pad's constant mode, negative pads cropping): every output row is the fill
// value on either side of a memcpy of the input row, and whole rows / planes outside the input
// are filled. Plain-old-data elements of any size; nothing allocated.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kiln::kernels {

// out[o] = in[o - begin] where that index is inside `in_dims` on every axis, else `fill` (one
// element of `elem_size` bytes). out_dims[a] = in_dims[a] + begin[a] + end[a] >= 0 (the pads
// may be negative). rank < kMaxCopyRank (strided_copy.h).
void pad_constant(const void* src, void* dst, size_t elem_size, size_t rank, const int64_t* in_dims,
                  const int64_t* out_dims, const int64_t* begin, const void* fill);

}  // namespace kiln::kernels
