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
// The broadcast of two shapes into `out` (which must not be either of them): no allocation once
// `out` has the capacity.
void broadcast_shapes_into(const Shape& a, const Shape& b, Shape& out);

// Strides (in elements) to read a contiguous tensor of `shape` as if it had `out_shape`:
// right-aligned, 0 on broadcast axes. Result has out_shape.size() entries.
std::vector<int64_t> broadcast_strides(const Shape& shape, const Shape& out_shape);

// Ranks up to this need no heap memory in the broadcasting loops below.
inline constexpr size_t kSmallRank = 8;
// broadcast_strides written to strides[0, out_shape.size()).
void broadcast_strides_into(const Shape& shape, const Shape& out_shape, int64_t* strides);

// Calls f(out_index, offsets...) for every element of out_shape in order, where each offset
// indexes one input through its broadcast strides (`strides[k][axis]`: vectors, as a braced list
// too, or arrays). Reference loop; kernels do better. The trailing dims every input reads
// contiguously (or not at all: stride 0 throughout) are walked as one run with constant steps --
// all of a same-shape operation, the rows of a bias broadcast -- so the index bookkeeping runs
// once per run, not per element.
template <size_t N, typename Strides = std::array<std::vector<int64_t>, N>, typename F>
void for_each_broadcast(const Shape& out_shape, const Strides& strides, F&& f) {
  const size_t rank = out_shape.size();
  const int64_t total = shape_numel(out_shape);
  std::array<int64_t, N> offsets{};
  if (total == 0) return;
  if (rank == 0) {
    f(int64_t{0}, offsets);
    return;
  }
  // The run: dims [outer, rank) merged while each input's stride on the next dim out equals its
  // step times the run so far (dims of size 1 merge always: their index stays 0).
  std::array<int64_t, N> step{};
  for (size_t k = 0; k < N; k++) step[k] = strides[k][rank - 1];
  int64_t run = out_shape[rank - 1];
  size_t outer = rank - 1;
  for (; outer > 0; outer--) {
    const size_t d = outer - 1;
    bool merges = true;
    for (size_t k = 0; k < N && out_shape[d] != 1; k++)
      merges = merges && strides[k][d] == step[k] * run;
    if (!merges) break;
    run *= out_shape[d];
  }
  std::array<int64_t, kSmallRank> small{};
  std::vector<int64_t> large;
  if (outer > kSmallRank) large.assign(outer, 0);
  int64_t* index = outer > kSmallRank ? large.data() : small.data();
  for (int64_t i = 0; i < total; i += run) {
    std::array<int64_t, N> o = offsets;
    for (int64_t j = 0; j < run; j++) {
      f(i + j, o);
      for (size_t k = 0; k < N; k++) o[k] += step[k];
    }
    for (size_t d = outer; d-- > 0;) {
      index[d]++;
      for (size_t k = 0; k < N; k++) offsets[k] += strides[k][d];
      if (index[d] < out_shape[d]) break;
      for (size_t k = 0; k < N; k++) offsets[k] -= strides[k][d] * index[d];
      index[d] = 0;
    }
  }
}

}  // namespace kiln
