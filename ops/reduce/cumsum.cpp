#include "ops/reduce/cumsum.h"

#include <type_traits>

#include "base/error.h"

namespace kiln::ops {

std::vector<Fact> CumSum::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 2);
  const Fact& x = required(inputs, 0, name());
  const Fact& axis = required(inputs, 1, name());
  KILN_ENSURE(is_numeric(x.dt), "{}: unsupported input type {}", name(), name_of(x.dt));
  KILN_ENSURE(axis.dt == DatumType::I64 || axis.dt == DatumType::I32,
              "{}: axis must be int32 or int64, got {}", name(), name_of(axis.dt));
  KILN_ENSURE(axis.rank() == 0 || (axis.rank() == 1 && axis.shape[0] == Dim(1)),
              "{}: axis must be a scalar, got shape [{}]", name(), dims_to_string(axis.shape));
  if (auto v = axis.known_i64_values(); v && !v->empty()) normalize_axis((*v)[0], x.rank(), name());
  return {Fact(x.dt, x.shape)};
}

void CumSum::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  const Tensor& axis_t = required(inputs, 1, name());
  KILN_ENSURE(axis_t.numel() == 1, "{}: axis must hold one value", name());
  size_t axis = normalize_axis(axis_t.value_as_i64(0), x.rank(), name());
  Tensor& out = ctx.output(0, x.dtype(), x.shape());
  // Nothing to sum (and the products of huge declared dims around an empty one need not fit).
  if (out.numel() == 0) return;
  int64_t outer = 1, n = x.dim(axis), inner = 1;
  for (size_t i = 0; i < axis; i++) outer *= x.dim(i);
  for (size_t i = axis + 1; i < x.rank(); i++) inner *= x.dim(i);
  dispatch_numeric(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    constexpr bool kHalf = std::is_same_v<T, f16> || std::is_same_v<T, bf16>;
    using Acc = std::conditional_t<kHalf || std::is_floating_point_v<T>, double, T>;
    const T* src = x.data<T>();
    T* dst = out.data<T>();
    for (int64_t o = 0; o < outer; o++) {
      for (int64_t i = 0; i < inner; i++) {
        Acc acc = 0;
        for (int64_t s = 0; s < n; s++) {
          int64_t k = reverse_ ? n - 1 - s : s;
          int64_t at = (o * n + k) * inner + i;
          Acc v = static_cast<Acc>(src[at]);
          if (!exclusive_) acc += v;
          if constexpr (kHalf)
            dst[at] = T(static_cast<float>(acc));
          else
            dst[at] = static_cast<T>(acc);
          if (exclusive_) acc += v;
        }
      }
    }
  });
}

}  // namespace kiln::ops
