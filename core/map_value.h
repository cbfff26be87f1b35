// Map values (ONNX `map(K, V)`: keys i64 or string, values f32, f64, i64 or string). They travel
// through graphs as rank-0 tensors of DatumType::Map holding one MapValue, like sequences
// (core/sequence.h): State, Identity and sequences carry them as any other value. A map is kept
// sorted by key, keys unique, and is never mutated once built: ops build new values.
#pragma once

#include <string>

#include "core/fact.h"
#include "core/tensor.h"

namespace kiln {

struct MapValue {
  DatumType key_dt = DatumType::I64;
  DatumType value_dt = DatumType::F32;
  Tensor keys;    // 1-D, key_dt, ascending, unique
  Tensor values;  // 1-D, value_dt, values[i] belongs to keys[i]
  int64_t size() const { return keys.is_null() ? 0 : keys.numel(); }
};

template <>
struct DatumTypeOf<MapValue> {
  static constexpr DatumType value = DatumType::Map;
};

inline bool is_map(const Tensor& t) {
  return !t.is_null() && t.dtype() == DatumType::Map;
}
// The types ONNX allows as map keys kiln supports (i64, string) and as values (f32, f64, i64,
// string).
bool is_map_key_type(DatumType dt);
bool is_map_value_type(DatumType dt);

// A map from keys[i] to values[i] (1-D tensors of the same length); sorted by key here. Throws on
// a duplicate key, a length mismatch or an unsupported key / value type.
Tensor make_map(Tensor keys, Tensor values);
// An empty map of these types.
Tensor make_empty_map(DatumType key_dt, DatumType value_dt);
// The map held by t; throws a clear error naming `what` when t is not one.
const MapValue& map_of(const Tensor& t, const std::string& what);
// The index of `key` in the map, -1 when absent (binary search on the sorted keys).
int64_t map_find(const MapValue& map, int64_t key);
int64_t map_find(const MapValue& map, const std::string& key);

// The fact of a map value: dt Map, key_dt, element a rank-0 fact of the value type.
Fact map_fact(DatumType key_dt, DatumType value_dt);
// "map(i64,f32)"
std::string map_type_name(DatumType key_dt, DatumType value_dt);
// "{1: 0.5, 3: 0.25}" (at most max_values entries, then "...").
std::string map_to_string(const MapValue& map, size_t max_values);

}  // namespace kiln
