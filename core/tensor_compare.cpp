#include "core/tensor_compare.h"

#include <fmt/format.h>

#include <cmath>

#include "core/map_value.h"
#include "core/sequence.h"

namespace kiln {

namespace {
Shape unravel(int64_t flat, const Shape& shape) {
  Shape index(shape.size(), 0);
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] == 0) continue;
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  return index;
}
}  // namespace

std::string CompareResult::summary() const {
  std::string where =
      max_error_index.empty() ? "" : " at [" + shape_to_string(max_error_index) + "]";
  if (!ok && !reason.empty() && mismatches == 0) return "MISMATCH: " + reason;
  std::string text = fmt::format("max abs error {:.3g}{}", max_abs_error, where);
  if (ok) return "ok, " + text;
  return fmt::format("MISMATCH: {} of elements outside tolerance, {}; {}", mismatches, text,
                     reason);
}

namespace {
// Sequences match item by item, optionals by presence and then value, maps by key types,
// keys (exactly) and then values.
CompareResult compare_containers(const Tensor& actual, const Tensor& expected, double rtol,
                                 double atol) {
  CompareResult r;
  if (is_map(actual)) {
    const auto& a = map_of(actual, "compare");
    const auto& e = map_of(expected, "compare");
    if (a.key_dt != e.key_dt || a.value_dt != e.value_dt) {
      r.ok = false;
      r.reason = fmt::format("{} instead of {}", map_type_name(a.key_dt, a.value_dt),
                             map_type_name(e.key_dt, e.value_dt));
      return r;
    }
    if (!a.keys.equals(e.keys)) {
      r.ok = false;
      r.reason = fmt::format("map keys {} instead of {}", a.keys.to_string(8), e.keys.to_string(8));
      return r;
    }
    r = compare_tensors(a.values, e.values, rtol, atol);
    if (!r.ok) r.reason = "map values: " + r.reason;
    return r;
  }
  if (is_optional(actual)) {
    const auto& a = optional_of(actual, "compare");
    const auto& e = optional_of(expected, "compare");
    if (a.has_value() != e.has_value()) {
      r.ok = false;
      r.reason = a.has_value() ? "optional holds a value, expected none"
                               : "optional is empty, expected a value";
      return r;
    }
    if (!a.has_value()) return r;
    r = compare_tensors(a.value, e.value, rtol, atol);
    if (!r.ok) r.reason = "optional value: " + r.reason;
    return r;
  }
  const auto& a = sequence_of(actual, "compare");
  const auto& e = sequence_of(expected, "compare");
  if (a.items.size() != e.items.size()) {
    r.ok = false;
    r.reason = fmt::format("sequence of {} items instead of {}", a.items.size(), e.items.size());
    return r;
  }
  for (size_t i = 0; i < a.items.size(); i++) {
    auto item = compare_tensors(a.items[i], e.items[i], rtol, atol);
    if (item.max_abs_error > r.max_abs_error || i == 0) {
      r.max_abs_error = item.max_abs_error;
      r.max_error_index = item.max_error_index;
    }
    if (!item.ok && r.ok) {
      r.ok = false;
      r.mismatches = item.mismatches;
      r.reason = fmt::format("sequence item {}: {}", i, item.reason);
    }
  }
  return r;
}
}  // namespace

CompareResult compare_tensors(const Tensor& actual, const Tensor& expected, double rtol,
                              double atol) {
  CompareResult r;
  if (actual.is_null() || expected.is_null()) {
    r.ok = actual.is_null() == expected.is_null();
    if (!r.ok) r.reason = "one tensor is missing";
    return r;
  }
  if (actual.dtype() != expected.dtype()) {
    r.ok = false;
    r.reason =
        fmt::format("type {} instead of {}", name_of(actual.dtype()), name_of(expected.dtype()));
    return r;
  }
  if (is_container(actual.dtype())) return compare_containers(actual, expected, rtol, atol);
  if (actual.shape() != expected.shape()) {
    r.ok = false;
    r.reason = fmt::format("shape [{}] instead of [{}]", shape_to_string(actual.shape()),
                           shape_to_string(expected.shape()));
    return r;
  }
  int64_t n = actual.numel();
  int64_t worst = -1;
  int64_t first_bad = -1;
  if (actual.dtype() == DatumType::String) {
    for (int64_t i = 0; i < n; i++)
      if (actual.data<std::string>()[i] != expected.data<std::string>()[i]) {
        r.mismatches++;
        if (first_bad < 0) first_bad = i;
      }
  } else if (is_float(actual.dtype()) || is_narrow_float(actual.dtype())) {
    for (int64_t i = 0; i < n; i++) {
      double a = actual.value_as_double(i), e = expected.value_as_double(i);
      if (std::isnan(a) && std::isnan(e)) continue;
      double err = std::isinf(a) && a == e ? 0.0 : std::fabs(a - e);
      if (std::isnan(err)) err = INFINITY;
      if (worst < 0 || err > r.max_abs_error) {
        r.max_abs_error = err;
        worst = i;
      }
      if (!(err <= atol + rtol * std::fabs(e))) {
        r.mismatches++;
        if (first_bad < 0) first_bad = i;
      }
    }
  } else {
    for (int64_t i = 0; i < n; i++) {
      int64_t a = actual.value_as_i64(i), e = expected.value_as_i64(i);
      double err = std::fabs(static_cast<double>(a) - static_cast<double>(e));
      if (worst < 0 || err > r.max_abs_error) {
        r.max_abs_error = err;
        worst = i;
      }
      if (a != e) {
        r.mismatches++;
        if (first_bad < 0) first_bad = i;
      }
    }
  }
  if (worst >= 0) r.max_error_index = unravel(worst, actual.shape());
  if (r.mismatches > 0) {
    r.ok = false;
    Shape idx = unravel(first_bad, actual.shape());
    if (actual.dtype() == DatumType::String) {
      r.reason = fmt::format("first at [{}]: \"{}\" vs expected \"{}\"", shape_to_string(idx),
                             actual.data<std::string>()[first_bad],
                             expected.data<std::string>()[first_bad]);
    } else {
      r.reason =
          fmt::format("first at [{}]: {} vs expected {}", shape_to_string(idx),
                      actual.value_as_double(first_bad), expected.value_as_double(first_bad));
    }
  }
  return r;
}

}  // namespace kiln
