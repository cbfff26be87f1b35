#include "ops/linalg/det.h"

#include <cmath>
#include <utility>
#include <vector>

#include "base/error.h"

namespace kiln::ops {

std::vector<Fact> Det::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(is_float(x.dt), "Det: input must be a float tensor, got {}", name_of(x.dt));
  KILN_ENSURE(x.rank() >= 2, "Det: input must have rank >= 2, got {}", x.rank());
  const Dim& m = x.shape[x.rank() - 1];
  const Dim& n = x.shape[x.rank() - 2];
  KILN_ENSURE(!(m.is_int() && n.is_int()) || m == n, "Det: matrices must be square, got {}x{}",
              n.to_string(), m.to_string());
  return {Fact(x.dt, std::vector<Dim>(x.shape.begin(), x.shape.end() - 2))};
}

void Det::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  KILN_ENSURE(x.rank() >= 2, "Det: input must have rank >= 2, got {}", x.rank());
  int64_t n = x.dim(x.rank() - 1);
  KILN_ENSURE(x.dim(x.rank() - 2) == n, "Det: matrices must be square, got {}x{}",
              x.dim(x.rank() - 2), n);
  Shape shape(x.shape().begin(), x.shape().end() - 2);
  Tensor& out = ctx.output(0, x.dtype(), shape);
  if (out.numel() == 0) return;  // (an empty batch of huge declared matrices: nothing to do)
  int64_t batch = shape_numel(shape);
  std::vector<double> a(static_cast<size_t>(n * n));
  for (int64_t b = 0; b < batch; b++) {
    for (int64_t i = 0; i < n * n; i++) a[i] = x.value_as_double(b * n * n + i);
    double det = 1;
    for (int64_t c = 0; c < n && det != 0; c++) {
      int64_t pivot = c;
      for (int64_t r = c + 1; r < n; r++)
        if (std::abs(a[r * n + c]) > std::abs(a[pivot * n + c])) pivot = r;
      if (a[pivot * n + c] == 0) {
        det = 0;
        break;
      }
      if (pivot != c) {
        for (int64_t k = 0; k < n; k++) std::swap(a[c * n + k], a[pivot * n + k]);
        det = -det;
      }
      det *= a[c * n + c];
      for (int64_t r = c + 1; r < n; r++) {
        double f = a[r * n + c] / a[c * n + c];
        for (int64_t k = c; k < n; k++) a[r * n + k] -= f * a[c * n + k];
      }
    }
    dispatch_numeric(x.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>)
        out.data<T>()[b] = T(static_cast<float>(det));
      else
        out.data<T>()[b] = static_cast<T>(det);
    });
  }
}

Cost Det::cost(const FactRefs& inputs) const {
  const Fact& x = required(inputs, 0, name());
  Cost c;
  c.fma_type = x.dt;
  if (x.rank() < 2) return c;
  Dim n = x.shape[x.rank() - 1];
  // LU: about n^3 / 3 multiply-adds per matrix.
  c.fma = dims_product(std::vector<Dim>(x.shape.begin(), x.shape.end() - 2)) * (n * n * n).div(3);
  c.other = dims_product(std::vector<Dim>(x.shape.begin(), x.shape.end() - 1));
  return c;
}

}  // namespace kiln::ops
