// Numpy-style (multidirectional) broadcasting of shapes, symbolic and concrete.
#pragma once

#include <array>
#include <vector>

#include "core/dim.h"
#include "core/tensor.h"

namespace kiln {

// The broadcast of several shapes (right-aligned; a dim of 1 stretches). Throws when two dims
// differ and neither is 1 (symbolic dims must be equal or one of them 1).
std::vector<Dim> broadcast_dims(const std::vector<std::vector<Dim>>& shapes);
Shape broadcast_shapes(const std::vector<Shape>& shapes);

// Strides (in elements) to read a contiguous tensor of `shape` as if it had `out_shape`:
// right-aligned, 0 on broadcast axes. Result has out_shape.size() entries.
std::vector<int64_t> broadcast_strides(const Shape& shape, const Shape& out_shape);

// Calls f(out_index, offsets...) for every element of out_shape, where each offset indexes one
// input through its broadcast strides. Plain reference loop; kernels do better.
template <size_t N, typename F>
void for_each_broadcast(const Shape& out_shape, const std::array<std::vector<int64_t>, N>& strides,
                        F&& f) {
  size_t rank = out_shape.size();
  int64_t total = shape_numel(out_shape);
  std::vector<int64_t> index(rank, 0);
  std::array<int64_t, N> offsets{};
  for (int64_t i = 0; i < total; i++) {
    f(i, offsets);
    for (size_t d = rank; d-- > 0;) {
      index[d]++;
      for (size_t k = 0; k < N; k++) offsets[k] += strides[k][d];
      if (index[d] < out_shape[d]) break;
      for (size_t k = 0; k < N; k++) offsets[k] -= strides[k][d] * index[d];
      index[d] = 0;
    }
  }
}

}  // namespace kiln
