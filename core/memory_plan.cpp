#include "core/memory_plan.h"

#include <algorithm>
#include <numeric>

#include "base/error.h"

namespace kiln {

MemoryLayout plan_memory(const std::vector<BufferLife>& buffers, size_t alignment) {
  KILN_ENSURE(alignment > 0 && (alignment & (alignment - 1)) == 0,
              "memory plan alignment {} is not a power of two", alignment);
  const size_t n = buffers.size();
  std::vector<size_t> sizes(n);
  for (size_t i = 0; i < n; i++) {
    const BufferLife& b = buffers[i];
    KILN_ENSURE(b.first <= b.last, "buffer {} dies (step {}) before it is written (step {})", i,
                b.last, b.first);
    sizes[i] = (b.bytes + alignment - 1) / alignment * alignment;
  }
  // Largest first; ties by earlier first use then index, so the layout is deterministic.
  std::vector<size_t> by_size(n);
  std::iota(by_size.begin(), by_size.end(), size_t{0});
  std::stable_sort(by_size.begin(), by_size.end(), [&](size_t a, size_t b) {
    if (sizes[a] != sizes[b]) return sizes[a] > sizes[b];
    return buffers[a].first < buffers[b].first;
  });

  MemoryLayout layout;
  layout.offsets.assign(n, 0);
  std::vector<size_t> placed;  // indices, kept sorted by offset
  std::vector<size_t> overlapping;
  for (size_t i : by_size) {
    const BufferLife& b = buffers[i];
    overlapping.clear();
    for (size_t j : placed)
      if (buffers[j].first <= b.last && b.first <= buffers[j].last) overlapping.push_back(j);
    // `overlapping` is sorted by offset: walk the gaps between them.
    size_t best = SIZE_MAX, best_gap = SIZE_MAX, cursor = 0;
    for (size_t j : overlapping) {
      size_t start = layout.offsets[j];
      if (start >= cursor) {
        size_t gap = start - cursor;
        if (gap >= sizes[i] && gap < best_gap) {
          best = cursor;
          best_gap = gap;
        }
      }
      cursor = std::max(cursor, start + sizes[j]);
    }
    if (best == SIZE_MAX) best = cursor;
    layout.offsets[i] = best;
    layout.arena_bytes = std::max(layout.arena_bytes, best + sizes[i]);
    auto pos = std::upper_bound(placed.begin(), placed.end(), best,
                                [&](size_t off, size_t j) { return off < layout.offsets[j]; });
    placed.insert(pos, i);
  }
  return layout;
}

}  // namespace kiln
