#include "io/tensor/conform.h"

#include <cstring>

#include "core/map_value.h"
#include "core/sequence.h"

namespace kiln::io {

Tensor conform_to(const Tensor& value, const Fact& declared) {
  if (value.is_null()) return value;
  if ((declared.dt == DatumType::BF16 || declared.dt == DatumType::F16) &&
      value.dtype() == DatumType::U16) {
    Tensor out(declared.dt, value.shape());
    if (value.nbytes()) std::memcpy(out.raw_data(), value.raw_data(), value.nbytes());
    return out;
  }
  // Narrow types come from .npy files as their exact values in a wider type.
  if (is_narrow(declared.dt) && (is_float(value.dtype()) || is_integer(value.dtype())))
    return value.cast_to(declared.dt);
  if (declared.dt == DatumType::Sequence && is_sequence(value) && declared.element) {
    const auto& seq = sequence_of(value, "conform");
    std::vector<Tensor> items;
    for (const auto& item : seq.items) items.push_back(conform_to(item, *declared.element));
    DatumType elem_dt = declared.element->dt;
    for (const auto& item : items)
      if (item.dtype() != elem_dt) return value;  // a real mismatch: leave it to the checks
    return make_sequence(elem_dt, std::move(items));
  }
  // An empty MapProto says nothing of its values' type: the declaration gives it.
  if (declared.dt == DatumType::Map && is_map(value) && declared.element &&
      map_of(value, "conform").size() == 0)
    return make_empty_map(map_of(value, "conform").key_dt, declared.element->dt);
  if (declared.dt == DatumType::Optional && is_optional(value) && declared.element) {
    const auto& opt = optional_of(value, "conform");
    const Fact& e = *declared.element;
    DatumType seq_elem = e.dt == DatumType::Sequence && e.element ? e.element->dt : DatumType::F32;
    if (!opt.has_value()) return make_optional(e.dt, Tensor(), seq_elem);
    Tensor inner = conform_to(opt.value, e);
    if (inner.dtype() != e.dt) return value;
    return make_optional(e.dt, inner, seq_elem);
  }
  return value;
}

}  // namespace kiln::io
