#include "ops/shape/tile.h"

#include <algorithm>
#include <vector>

#include "ops/shape/common.h"

namespace kiln::ops {

std::vector<Fact> Tile::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 2);
  const Fact& in = required(inputs, 0, name());
  const Fact& repeats = required(inputs, 1, name());
  KILN_ENSURE(repeats.rank() == 1, "Tile: repeats must have rank 1");
  std::vector<Dim> r = dims_from_shape_input(repeats, name());
  KILN_ENSURE(r.size() == in.rank(), "Tile: {} repeats for input of rank {}", r.size(), in.rank());
  std::vector<Dim> out;
  for (size_t i = 0; i < r.size(); i++) {
    if (auto v = r[i].as_int()) KILN_ENSURE(*v >= 0, "Tile: negative repeat {}", *v);
    out.push_back(in.shape[i] * r[i]);
  }
  return {Fact(in.dt, out)};
}

namespace {

// Writes the tiling of `src` (dims [d, rank) of the input) at `dst`: the input's rows at dim d,
// each tiled over the dims after d, then that block repeated r[d] times. Whole runs are copied
// (std::copy_n: memmove for plain types), never one element at a time.
template <typename T>
void tile_dims(const T* src, T* dst, size_t d, const Shape& in, const Shape& in_strides,
               const Shape& out_strides, const std::vector<int64_t>& r) {
  const int64_t n = in[d];
  if (d + 1 == in.size()) {
    for (int64_t rep = 0; rep < r[d]; rep++) std::copy_n(src, n, dst + rep * n);
    return;
  }
  for (int64_t i = 0; i < n; i++)
    tile_dims(src + i * in_strides[d], dst + i * out_strides[d], d + 1, in, in_strides, out_strides,
              r);
  const int64_t block = n * out_strides[d];
  for (int64_t rep = 1; rep < r[d]; rep++) std::copy_n(dst, block, dst + rep * block);
}

}  // namespace

void Tile::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& in = required(inputs, 0, name());
  auto r = index_values(required(inputs, 1, name()), name());
  KILN_ENSURE(r.size() == in.rank(), "Tile: {} repeats for input of rank {}", r.size(), in.rank());
  Shape out_shape;
  for (size_t i = 0; i < r.size(); i++) {
    KILN_ENSURE(r[i] >= 0, "Tile: negative repeat {}", r[i]);
    KILN_ENSURE(in.dim(i) == 0 || r[i] <= (int64_t{1} << 62) / in.dim(i),
                "Tile: {} repeats of a dim of {} is too large", r[i], in.dim(i));
    out_shape.push_back(in.dim(i) * r[i]);
  }
  Tensor& out = ctx.output(0, in.dtype(), out_shape);
  if (out.numel() == 0) return;
  dispatch_any(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (in.rank() == 0) {
      out.data<T>()[0] = in.data<T>()[0];
      return;
    }
    tile_dims(in.data<T>(), out.data<T>(), 0, in.shape(), contiguous_strides(in.shape()),
              contiguous_strides(out_shape), r);
  });
}

}  // namespace kiln::ops
