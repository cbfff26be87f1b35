// Memory plan: given buffers with sizes and lifetimes (the steps of a plan's evaluation order
// from the one that writes them to the last one that reads them), assigns each an offset in one
// arena so that buffers alive at the same step never overlap, and the arena stays small.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kiln {

struct BufferLife {
  size_t bytes = 0;
  int first = 0;  // step that writes it
  int last = 0;   // last step that reads it (>= first)
};

struct MemoryLayout {
  std::vector<size_t> offsets;  // one per buffer, multiples of the alignment
  size_t arena_bytes = 0;       // bytes the arena needs
};

// Greedy by size, best fit: buffers in decreasing size take the smallest gap between the
// buffers already placed that are alive at the same time, or go above them all. Sizes are
// rounded up to `alignment` (a power of two). The arena never exceeds the sum of the rounded
// sizes. Throws kiln::Error on a lifetime with last < first.
MemoryLayout plan_memory(const std::vector<BufferLife>& buffers, size_t alignment = 64);

}  // namespace kiln
