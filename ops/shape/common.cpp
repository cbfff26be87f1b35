#include "ops/shape/common.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/run_limits.h"

namespace kiln::ops {

std::vector<int64_t> index_values(const Tensor& t, const std::string& op) {
  KILN_ENSURE(is_integer(t.dtype()), "{}: indices must be integers, got {}", op,
              name_of(t.dtype()));
  return t.to_i64_vector();
}

int64_t rank1_length(const Fact& f, const std::string& op) {
  KILN_ENSURE(f.rank() == 1, "{}: expected a rank 1 tensor, got shape [{}]", op,
              dims_to_string(f.shape));
  auto n = f.shape[0].as_int();
  KILN_ENSURE(n.has_value(), "{}: length of shape input is symbolic ({})", op,
              f.shape[0].to_string());
  return *n;
}

std::vector<Dim> dims_from_shape_input(const Fact& shape, const std::string& op) {
  KILN_ENSURE(is_integer(shape.dt), "{}: shape input must be integers, got {}", op,
              name_of(shape.dt));
  if (shape.dims_value) return *shape.dims_value;
  if (auto v = shape.known_i64_values()) return {v->begin(), v->end()};
  int64_t n = shape.rank() == 0 ? 1 : rank1_length(shape, op);
  check_rank(n, op.c_str());  // a declared shape input of [2^62] must not make 2^62 dims
  std::vector<Dim> dims;
  for (int64_t i = 0; i < n; i++) dims.push_back(Dim::fresh());
  return dims;
}

Fact fact_from_dims_value(DatumType dt, std::vector<Dim> shape, std::vector<Dim> dims) {
  bool concrete = true;
  for (const auto& d : dims) concrete = concrete && d.is_int();
  bool shape_concrete = true;
  for (const auto& d : shape) shape_concrete = shape_concrete && d.is_int();
  if (concrete && shape_concrete && dt == DatumType::I64) {
    std::vector<int64_t> v;
    for (const auto& d : dims) v.push_back(d.to_int());
    Shape s;
    for (const auto& d : shape) s.push_back(d.to_int());
    Fact f = Fact::constant(Tensor::from_vector<int64_t>(s, v));
    f.dims_value = std::move(dims);
    return f;
  }
  Fact f(dt, std::move(shape));
  f.dims_value = std::move(dims);
  return f;
}

}  // namespace kiln::ops
