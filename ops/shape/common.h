// Helpers shared by the shape / data-movement ops.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/op.h"

namespace kiln::ops {

// Elements of an integer index tensor (i32 / i64) as int64.
std::vector<int64_t> index_values(const Tensor& t, const std::string& op);

// Dims of a shape-like input (rank 1 integer tensor): its symbolic values when known, else a
// fresh symbol per element (the length must then be an integer).
std::vector<Dim> dims_from_shape_input(const Fact& shape, const std::string& op);

// The length of a rank-1 tensor fact, as an integer (throws when it is symbolic).
int64_t rank1_length(const Fact& f, const std::string& op);

// A fact of an integer tensor carrying `dims` as values; it also has a concrete `value` when
// every dim is an integer.
Fact fact_from_dims_value(DatumType dt, std::vector<Dim> shape, std::vector<Dim> dims);

// True when the fact is an integer tensor of rank <= 1 (a carrier of shapes).
inline bool is_shape_like(const Fact& f) {
  return is_integer(f.dt) && f.rank() <= 1;
}

}  // namespace kiln::ops
