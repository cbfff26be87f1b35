#include "ops/shape/expand.h"

#include <array>

#include "core/broadcast.h"
#include "ops/shape/common.h"

namespace kiln::ops {

std::vector<Fact> Expand::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 2);
  const Fact& in = required(inputs, 0, name());
  const Fact& shape = required(inputs, 1, name());
  KILN_ENSURE(shape.rank() == 1, "Expand: shape input must have rank 1");
  std::vector<Dim> target = dims_from_shape_input(shape, name());
  // Right-aligned; a target dim of 1 keeps the input's dim, an input dim of 1 takes the target.
  size_t rank = std::max(in.rank(), target.size());
  std::vector<Dim> out(rank);
  for (size_t i = 0; i < rank; i++) {
    size_t oi = rank - 1 - i;
    Dim a = i < in.rank() ? in.shape[in.rank() - 1 - i] : Dim(1);
    Dim b = i < target.size() ? target[target.size() - 1 - i] : Dim(1);
    if (a == Dim(1)) {
      out[oi] = b;
    } else if (b == Dim(1) || a == b) {
      out[oi] = a;
    } else {
      KILN_ENSURE(!a.is_int() || !b.is_int(), "Expand: cannot expand [{}] to [{}]",
                  dims_to_string(in.shape), dims_to_string(target));
      // A symbolic target dim may be 1 at run time: the input dim wins when it is known.
      out[oi] = a.is_int() ? a : b;
    }
  }
  return {Fact(in.dt, out)};
}

void Expand::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& in = required(inputs, 0, name());
  const Tensor& shape = required(inputs, 1, name());
  KILN_ENSURE(is_integer(shape.dtype()), "{}: indices must be integers, got {}", name(),
              name_of(shape.dtype()));
  // Reusable shapes and fixed strides: no allocation per run.
  Shape& target = ctx.temp_shape(1);
  for (int64_t i = 0; i < shape.numel(); i++) target.push_back(shape.value_as_i64(i));
  Shape& out_shape = ctx.temp_shape(0);
  broadcast_shapes_into(in.shape(), target, out_shape);
  Tensor& out = ctx.output(0, in.dtype(), out_shape);
  auto copy = [&](const auto& strides) {
    dispatch_any(in.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* src = in.data<T>();
      T* dst = out.data<T>();
      for_each_broadcast<1>(out_shape, strides, [&](int64_t i, const std::array<int64_t, 1>& o) {
        dst[i] = src[o[0]];
      });
    });
  };
  if (out_shape.size() <= kSmallRank) {
    std::array<std::array<int64_t, kSmallRank>, 1> strides{};
    broadcast_strides_into(in.shape(), out_shape, strides[0].data());
    copy(strides);
  } else {
    copy(std::array<std::vector<int64_t>, 1>{broadcast_strides(in.shape(), out_shape)});
  }
}

}  // namespace kiln::ops
