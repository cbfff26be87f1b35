#include "ops/elementwise/where.h"

#include "ops/elementwise/util.h"

namespace kiln::ops {

std::vector<Fact> Where::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 3, 3);
  const Fact& c = required(inputs, 0, name());
  const Fact& x = required(inputs, 1, name());
  const Fact& y = required(inputs, 2, name());
  KILN_ENSURE(c.dt == DatumType::Bool, "Where: condition must be bool, got {}", name_of(c.dt));
  KILN_ENSURE(x.dt == y.dt, "Where: X is {} but Y is {}", name_of(x.dt), name_of(y.dt));
  Fact out(x.dt, broadcast_facts({&c, &x, &y}));
  // Shape-carrying selection (e.g. replacing -1 entries of a shape) stays symbolic.
  auto cond = c.known_i64_values();
  if (cond && x.dims_value && y.dims_value && out.rank() <= 1 && c.rank() <= 1 && x.rank() <= 1 &&
      y.rank() <= 1) {
    std::optional<int64_t> len = out.rank() == 0 ? 1 : out.shape[0].as_int();
    if (!len || *len > 64) return {out};
    size_t n = static_cast<size_t>(*len);
    auto pick = [n](size_t size, size_t i) { return size == 1 ? 0 : (size == n ? i : SIZE_MAX); };
    std::vector<Dim> dims;
    for (size_t i = 0; i < n; i++) {
      size_t ic = pick(cond->size(), i), ix = pick(x.dims_value->size(), i),
             iy = pick(y.dims_value->size(), i);
      if (ic == SIZE_MAX || ix == SIZE_MAX || iy == SIZE_MAX) return {out};
      dims.push_back((*cond)[ic] ? (*x.dims_value)[ix] : (*y.dims_value)[iy]);
    }
    out.dims_value = std::move(dims);
  }
  return {out};
}

void Where::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& c = required(inputs, 0, name());
  const Tensor& x = required(inputs, 1, name());
  const Tensor& y = required(inputs, 2, name());
  KILN_ENSURE(c.dtype() == DatumType::Bool, "Where: condition must be bool");
  KILN_ENSURE(x.dtype() == y.dtype(), "Where: X and Y have different types");
  Shape& cx = ctx.temp_shape(1);  // reusable shapes: no allocation per run
  broadcast_shapes_into(c.shape(), x.shape(), cx);
  Shape& shape = ctx.temp_shape(0);
  broadcast_shapes_into(cx, y.shape(), shape);
  Tensor& out = ctx.output(0, x.dtype(), shape);
  dispatch_any(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const bool* pc = c.data<bool>();
    const T* px = x.data<T>();
    const T* py = y.data<T>();
    T* po = out.data<T>();
    auto pick = [&](int64_t i, const std::array<int64_t, 3>& o) {
      po[i] = pc[o[0]] ? px[o[1]] : py[o[2]];
    };
    if (shape.size() <= kSmallRank) {
      std::array<std::array<int64_t, kSmallRank>, 3> strides{};
      broadcast_strides_into(c.shape(), shape, strides[0].data());
      broadcast_strides_into(x.shape(), shape, strides[1].data());
      broadcast_strides_into(y.shape(), shape, strides[2].data());
      for_each_broadcast<3>(shape, strides, pick);
    } else {
      std::array<std::vector<int64_t>, 3> strides{broadcast_strides(c.shape(), shape),
                                                  broadcast_strides(x.shape(), shape),
                                                  broadcast_strides(y.shape(), shape)};
      for_each_broadcast<3>(shape, strides, pick);
    }
  });
}

}  // namespace kiln::ops
