// Fact: what is known about a tensor before running: its datum type, its shape (symbolic dims
// allowed), and possibly its value (a constant) or, for small integer tensors that carry
// shapes, its values as dims (so Shape -> Gather -> Concat -> Reshape stays symbolic).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/datum_type.h"
#include "core/dim.h"
#include "core/tensor.h"

namespace kiln {

struct Fact {
  DatumType dt = DatumType::F32;
  std::vector<Dim> shape;
  std::shared_ptr<const Tensor> value;         // set when the tensor is a known constant
  std::optional<std::vector<Dim>> dims_value;  // rank 0/1 integer tensors: values as dims
  // Sequence / Optional values (core/sequence.h): what every item / the contained value is;
  // Map values (core/map_value.h): the values' type (a fact of rank 0), keys being `key_dt`.
  std::shared_ptr<const Fact> element;
  DatumType key_dt = DatumType::I64;  // Map values only: i64 or string
  // False when nothing is known of the shape, not even the rank (then `shape` is empty): only
  // for sequence items whose ranks differ or are not declared.
  bool rank_known = true;

  Fact() = default;
  Fact(DatumType dt, std::vector<Dim> shape) : dt(dt), shape(std::move(shape)) {}
  Fact(DatumType dt, const Shape& shape);
  // The fact of a known constant (type, shape, value; dims_value for small integer tensors).
  static Fact constant(Tensor value);
  // Parses "1,S,40,f32", "f32" (a scalar) or "1,3,224,224" (f32 by default).
  static Fact parse(std::string_view text);

  size_t rank() const { return shape.size(); }
  bool is_concrete() const;
  // The shape as integers; throws when a dim is symbolic.
  Shape concrete_shape() const;
  std::optional<Shape> try_concrete_shape() const;
  // Integer values of a constant or a concrete dims_value, when known.
  std::optional<std::vector<int64_t>> known_i64_values() const;
  Dim volume() const { return dims_product(shape); }
  // "1,S,40,f32"; a constant scalar adds its value: "i64=16000".
  std::string to_string() const;
  // True when type and shape are the same (values are not compared).
  bool same_type_and_shape(const Fact& other) const;
};

}  // namespace kiln
