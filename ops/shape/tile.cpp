#include "ops/shape/tile.h"

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

void Tile::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& in = required(inputs, 0, name());
  auto r = index_values(required(inputs, 1, name()), name());
  KILN_ENSURE(r.size() == in.rank(), "Tile: {} repeats for input of rank {}", r.size(), in.rank());
  Shape out_shape;
  for (size_t i = 0; i < r.size(); i++) {
    KILN_ENSURE(r[i] >= 0, "Tile: negative repeat {}", r[i]);
    out_shape.push_back(in.dim(i) * r[i]);
  }
  Tensor& out = ctx.output(0, in.dtype(), out_shape);
  auto strides = contiguous_strides(in.shape());
  size_t rank = in.rank();
  dispatch_any(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = in.data<T>();
    T* dst = out.data<T>();
    std::vector<int64_t> pos(rank, 0);
    for (int64_t i = 0; i < out.numel(); i++) {
      int64_t off = 0;
      for (size_t d = 0; d < rank; d++) off += (pos[d] % in.dim(d)) * strides[d];
      dst[i] = src[off];
      for (size_t d = rank; d-- > 0;) {
        if (++pos[d] < out_shape[d]) break;
        pos[d] = 0;
      }
    }
  });
}

}  // namespace kiln::ops
