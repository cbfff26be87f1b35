#include "core/sequence.h"
#include "core/map_value.h"

#include <fmt/format.h>

#include "base/error.h"

namespace kiln {

Tensor make_sequence(DatumType elem_dt, std::vector<Tensor> items) {
  KILN_ENSURE(static_cast<int64_t>(items.size()) <= kMaxSequenceItems,
              "a sequence of {} items is too long (at most 2^24)", items.size());
  for (size_t i = 0; i < items.size(); i++) {
    KILN_ENSURE(!items[i].is_null(), "sequence item {} is missing", i);
    KILN_ENSURE(items[i].dtype() == elem_dt, "sequence of {} cannot hold item {} of type {}",
                name_of(elem_dt), i, name_of(items[i].dtype()));
  }
  Tensor t(DatumType::Sequence, Shape{});
  auto& seq = t.data<SequenceValue>()[0];
  seq.elem_dt = elem_dt;
  seq.items = std::move(items);
  return t;
}

Tensor make_optional(DatumType elem_dt, Tensor value, DatumType seq_elem_dt) {
  KILN_ENSURE(value.is_null() || value.dtype() == elem_dt,
              "optional of {} cannot hold a value of type {}", name_of(elem_dt),
              name_of(value.dtype()));
  Tensor t(DatumType::Optional, Shape{});
  auto& opt = t.data<OptionalValue>()[0];
  opt.elem_dt = elem_dt;
  opt.seq_elem_dt = seq_elem_dt;
  if (is_sequence(value)) opt.seq_elem_dt = sequence_of(value, "optional").elem_dt;
  opt.value = std::move(value);
  return t;
}

const SequenceValue& sequence_of(const Tensor& t, const std::string& what) {
  KILN_ENSURE(is_sequence(t) && t.numel() == 1, "{}: expected a sequence, got {}", what,
              t.is_null() ? std::string("nothing") : std::string(name_of(t.dtype())));
  return t.data<SequenceValue>()[0];
}

const OptionalValue& optional_of(const Tensor& t, const std::string& what) {
  KILN_ENSURE(is_optional(t) && t.numel() == 1, "{}: expected an optional, got {}", what,
              t.is_null() ? std::string("nothing") : std::string(name_of(t.dtype())));
  return t.data<OptionalValue>()[0];
}

Fact sequence_fact(Fact element) {
  Fact f(DatumType::Sequence, std::vector<Dim>{});
  element.value.reset();
  element.dims_value.reset();
  f.element = std::make_shared<const Fact>(std::move(element));
  return f;
}

Fact optional_fact(Fact element) {
  Fact f(DatumType::Optional, std::vector<Dim>{});
  element.value.reset();
  element.dims_value.reset();
  f.element = std::make_shared<const Fact>(std::move(element));
  return f;
}

Fact unknown_shape_fact(DatumType dt) {
  Fact f(dt, std::vector<Dim>{});
  f.rank_known = false;
  return f;
}

const Fact& element_fact(const Fact& container, DatumType kind, const std::string& what) {
  KILN_ENSURE(container.dt == kind && container.element, "{}: expected {}, got {}", what,
              name_of(kind), container.to_string());
  return *container.element;
}

Fact generalize_facts(const Fact& a, const Fact& b, const std::string& what) {
  KILN_ENSURE(a.dt == b.dt, "{}: type {} vs {}", what, name_of(a.dt), name_of(b.dt));
  if (a.dt == DatumType::Map) {
    KILN_ENSURE(a.element && b.element && a.key_dt == b.key_dt && a.element->dt == b.element->dt,
                "{}: {} vs {}", what, a.to_string(), b.to_string());
    return map_fact(a.key_dt, a.element->dt);
  }
  if (is_container(a.dt)) {
    KILN_ENSURE(a.element && b.element, "{}: {} without element type", what, name_of(a.dt));
    Fact e = generalize_facts(*a.element, *b.element, what);
    return a.dt == DatumType::Sequence ? sequence_fact(std::move(e)) : optional_fact(std::move(e));
  }
  if (!a.rank_known || !b.rank_known || a.rank() != b.rank()) return unknown_shape_fact(a.dt);
  Fact out(a.dt, a.shape);
  for (size_t d = 0; d < a.rank(); d++)
    if (a.shape[d] != b.shape[d]) out.shape[d] = Dim::fresh();
  return out;
}

bool fact_admits(const Fact& fact, const Tensor& value) {
  if (value.is_null() || value.dtype() != fact.dt) return false;
  if (is_sequence(value)) {
    if (!fact.element) return true;
    for (const auto& item : sequence_of(value, "sequence").items)
      if (!fact_admits(*fact.element, item)) return false;
    return true;
  }
  if (is_map(value)) {
    const auto& m = map_of(value, "map");
    return !fact.element || (fact.key_dt == m.key_dt && fact.element->dt == m.value_dt);
  }
  if (is_optional(value)) {
    const auto& opt = optional_of(value, "optional");
    return !fact.element || !opt.has_value() || fact_admits(*fact.element, opt.value);
  }
  if (!fact.rank_known) return true;
  if (fact.rank() != value.rank()) return false;
  for (size_t d = 0; d < value.rank(); d++)
    if (fact.shape[d].is_int() && fact.shape[d].to_int() != value.dim(d)) return false;
  return true;
}

Fact fact_of_value(const Tensor& value) {
  if (is_map(value)) {
    const auto& m = map_of(value, "map");
    return map_fact(m.key_dt, m.value_dt);
  }
  if (is_sequence(value)) {
    const auto& seq = sequence_of(value, "sequence");
    if (seq.items.empty()) return sequence_fact(unknown_shape_fact(seq.elem_dt));
    Fact e = fact_of_value(seq.items[0]);
    for (size_t i = 1; i < seq.items.size(); i++)
      e = generalize_facts(e, fact_of_value(seq.items[i]), "sequence items");
    return sequence_fact(std::move(e));
  }
  if (is_optional(value)) {
    const auto& opt = optional_of(value, "optional");
    if (!opt.has_value()) {
      if (opt.elem_dt == DatumType::Sequence)
        return optional_fact(sequence_fact(unknown_shape_fact(opt.seq_elem_dt)));
      return optional_fact(unknown_shape_fact(opt.elem_dt));
    }
    return optional_fact(fact_of_value(opt.value));
  }
  return Fact(value.dtype(), value.shape());
}

}  // namespace kiln
