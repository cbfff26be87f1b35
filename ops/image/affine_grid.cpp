#include "ops/image/affine_grid.h"

#include "base/error.h"
#include "ops/nn/nn_common.h"

namespace kiln::ops {

std::vector<Fact> AffineGrid::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 2);
  const Fact& theta = required(inputs, 0, name());
  const Fact& size = required(inputs, 1, name());
  KILN_ENSURE(is_float(theta.dt) && theta.rank() == 3, "AffineGrid: theta must be 3-D float");
  KILN_ENSURE(is_integer(size.dt) && size.rank() == 1, "AffineGrid: size must be 1-D integers");
  auto rows = theta.shape[1].as_int();
  KILN_ENSURE(rows && (*rows == 2 || *rows == 3),
              "AffineGrid: theta must be [N, 2, 3] or [N, 3, 4]");
  std::vector<Dim> shape{theta.shape[0]};
  if (auto v = size.known_i64_values()) {
    KILN_ENSURE(static_cast<int64_t>(v->size()) == *rows + 2,
                "AffineGrid: size has {} values, theta [N, {}, ...] needs {}", v->size(), *rows,
                *rows + 2);
    for (size_t i = 2; i < v->size(); i++) shape.push_back((*v)[i]);
  } else if (size.dims_value) {
    for (size_t i = 2; i < size.dims_value->size(); i++) shape.push_back((*size.dims_value)[i]);
  } else {
    for (int64_t i = 0; i < *rows; i++) shape.push_back(Dim::fresh());
  }
  shape.push_back(*rows);
  return {Fact(theta.dt, shape)};
}

namespace {

template <typename T>
void affine_grid(const Tensor& theta, const std::vector<int64_t>& size, bool align, Tensor& grid) {
  using A = nn::Acc<T>;
  const int64_t dims = theta.dim(1);  // 2 or 3 spatial dims
  const int64_t n = theta.dim(0);
  // Spatial sizes in (x, y, z) order: W, H[, D].
  int64_t extent[3] = {1, 1, 1};
  for (int64_t k = 0; k < dims; k++) extent[k] = size[static_cast<size_t>(size.size() - 1 - k)];
  auto coord = [&](int64_t i, int64_t len) -> A {
    if (len <= 1) return A(0);
    return align ? A(-1) + A(2) * A(i) / A(len - 1) : (A(2) * A(i) + A(1)) / A(len) - A(1);
  };
  const T* td = theta.data<T>();
  T* gd = grid.data<T>();
  const int64_t points = extent[0] * extent[1] * extent[2];
  for (int64_t b = 0; b < n; b++) {
    const T* m = td + b * dims * (dims + 1);
    for (int64_t p = 0; p < points; p++) {
      A base[4] = {coord(p % extent[0], extent[0]), coord(p / extent[0] % extent[1], extent[1]),
                   coord(p / (extent[0] * extent[1]), extent[2]), A(1)};
      if (dims == 2) base[2] = A(1);
      for (int64_t r = 0; r < dims; r++) {
        A v = 0;
        for (int64_t k = 0; k <= dims; k++) v += nn::to_acc<A>(m[r * (dims + 1) + k]) * base[k];
        gd[(b * points + p) * dims + r] = nn::from_acc<T>(v);
      }
    }
  }
}

}  // namespace

void AffineGrid::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& theta = required(inputs, 0, name());
  std::vector<int64_t> size = required(inputs, 1, name()).to_i64_vector();
  KILN_ENSURE(theta.rank() == 3 && (theta.dim(1) == 2 || theta.dim(1) == 3) &&
                  theta.dim(2) == theta.dim(1) + 1,
              "AffineGrid: theta must be [N, 2, 3] or [N, 3, 4], got [{}]",
              shape_to_string(theta.shape()));
  const int64_t dims = theta.dim(1);
  KILN_ENSURE(static_cast<int64_t>(size.size()) == dims + 2 && size[0] == theta.dim(0),
              "AffineGrid: size [{}] does not fit theta [{}]", fmt::join(size, ","),
              shape_to_string(theta.shape()));
  Shape& shape = ctx.temp_shape(0);
  shape.assign({theta.dim(0)});
  for (size_t i = 2; i < size.size(); i++) {
    KILN_ENSURE(size[i] >= 0, "AffineGrid: negative size {}", size[i]);
    shape.push_back(size[i]);
  }
  shape.push_back(dims);
  Tensor& grid = ctx.output(0, theta.dtype(), shape);
  switch (theta.dtype()) {
    case DatumType::F32:
      return affine_grid<float>(theta, size, align_corners_, grid);
    case DatumType::F64:
      return affine_grid<double>(theta, size, align_corners_, grid);
    case DatumType::F16:
      return affine_grid<f16>(theta, size, align_corners_, grid);
    case DatumType::BF16:
      return affine_grid<bf16>(theta, size, align_corners_, grid);
    default:
      fail("AffineGrid: unsupported type {}", name_of(theta.dtype()));
  }
}

}  // namespace kiln::ops
