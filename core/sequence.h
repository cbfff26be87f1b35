// Sequence and optional values (ONNX `seq(T)` and `optional(T)`). They travel through graphs as
// rank-0 tensors of DatumType::Sequence / DatumType::Optional holding one SequenceValue /
// OptionalValue, so State, If, Loop and Identity carry them like any other value. Items are
// tensors (possibly sequences themselves) shared, never mutated: ops build new values.
#pragma once

#include <string>
#include <vector>

#include "core/fact.h"
#include "core/tensor.h"

namespace kiln {

struct SequenceValue {
  DatumType elem_dt = DatumType::F32;  // the datum type of every item
  std::vector<Tensor> items;
};

struct OptionalValue {
  DatumType elem_dt = DatumType::F32;      // the datum type of the value (Sequence for seq(T))
  DatumType seq_elem_dt = DatumType::F32;  // for optional(seq(T)): T
  Tensor value;                            // null when the optional is empty
  bool has_value() const { return !value.is_null(); }
};

template <>
struct DatumTypeOf<SequenceValue> {
  static constexpr DatumType value = DatumType::Sequence;
};
template <>
struct DatumTypeOf<OptionalValue> {
  static constexpr DatumType value = DatumType::Optional;
};

inline bool is_sequence(const Tensor& t) {
  return !t.is_null() && t.dtype() == DatumType::Sequence;
}
inline bool is_optional(const Tensor& t) {
  return !t.is_null() && t.dtype() == DatumType::Optional;
}

// The most items a sequence may hold: a hostile SplitToSequence of an empty axis of 2^31 asked
// for 2^31 tensors (tens of GB of bookkeeping, charged to no budget).
inline constexpr int64_t kMaxSequenceItems = int64_t{1} << 24;

// A sequence value of items of type elem_dt (each item must have that type, at most
// kMaxSequenceItems of them).
Tensor make_sequence(DatumType elem_dt, std::vector<Tensor> items);
// An optional value holding `value`, or empty when value is null (seq_elem_dt: the item type
// when elem_dt is Sequence).
Tensor make_optional(DatumType elem_dt, Tensor value, DatumType seq_elem_dt = DatumType::F32);
// The sequence / optional held by t; throws a clear error naming `what` when t is not one.
const SequenceValue& sequence_of(const Tensor& t, const std::string& what);
const OptionalValue& optional_of(const Tensor& t, const std::string& what);

// Facts of sequences and optionals: the element fact says what every item (or the contained
// value) is known to be; an element of unknown rank has rank_known == false.
Fact sequence_fact(Fact element);
Fact optional_fact(Fact element);
// A fact of type dt whose shape is unknown (any rank).
Fact unknown_shape_fact(DatumType dt);
// The element fact of a sequence / optional fact; throws naming `what` when it is not one.
const Fact& element_fact(const Fact& container, DatumType kind, const std::string& what);
// The most precise fact describing both a and b (same datum type required; differing dims
// become fresh symbols, differing ranks an unknown rank; element facts merged recursively).
Fact generalize_facts(const Fact& a, const Fact& b, const std::string& what);
// Whether `value` fits `fact`: same types, and shapes where the fact has known dims (symbolic
// dims admit any size; their consistency across values is not checked).
bool fact_admits(const Fact& fact, const Tensor& value);
// The fact of a concrete value (items of a sequence generalized together).
Fact fact_of_value(const Tensor& value);

}  // namespace kiln
