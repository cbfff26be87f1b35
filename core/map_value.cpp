#include "core/map_value.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "base/error.h"

namespace kiln {

bool is_map_key_type(DatumType dt) {
  return dt == DatumType::I64 || dt == DatumType::String;
}

bool is_map_value_type(DatumType dt) {
  return dt == DatumType::F32 || dt == DatumType::F64 || dt == DatumType::I64 ||
         dt == DatumType::String;
}

namespace {

template <typename K>
std::vector<int64_t> sorted_order(const K* keys, int64_t n) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return keys[a] < keys[b]; });
  for (size_t i = 1; i < order.size(); i++)
    if (!(keys[order[i - 1]] < keys[order[i]])) {
      if constexpr (std::is_same_v<K, std::string>)
        fail("map: duplicate key \"{}\"", keys[order[i]]);
      else
        fail("map: duplicate key {}", keys[order[i]]);
    }
  return order;
}

// t's elements in `order` (1-D).
Tensor gather_1d(const Tensor& t, const std::vector<int64_t>& order) {
  Tensor out(t.dtype(), Shape{static_cast<int64_t>(order.size())});
  dispatch_any(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = t.data<T>();
    T* dst = out.data<T>();
    for (size_t i = 0; i < order.size(); i++) dst[i] = src[order[i]];
  });
  return out;
}

}  // namespace

Tensor make_map(Tensor keys, Tensor values) {
  KILN_ENSURE(!keys.is_null() && !values.is_null(), "map: keys or values missing");
  KILN_ENSURE(is_map_key_type(keys.dtype()), "map keys of type {} are not supported (i64, string)",
              name_of(keys.dtype()));
  KILN_ENSURE(is_map_value_type(values.dtype()),
              "map values of type {} are not supported (f32, f64, i64, string)",
              name_of(values.dtype()));
  KILN_ENSURE(keys.rank() == 1 && values.rank() == 1 && keys.numel() == values.numel(),
              "map: {} keys for {} values", keys.numel(), values.numel());
  std::vector<int64_t> order = keys.dtype() == DatumType::I64
                                   ? sorted_order(keys.data<int64_t>(), keys.numel())
                                   : sorted_order(keys.data<std::string>(), keys.numel());
  Tensor t(DatumType::Map, Shape{});
  auto& m = t.data<MapValue>()[0];
  m.key_dt = keys.dtype();
  m.value_dt = values.dtype();
  m.keys = gather_1d(keys, order);
  m.values = gather_1d(values, order);
  return t;
}

Tensor make_empty_map(DatumType key_dt, DatumType value_dt) {
  return make_map(Tensor(key_dt, Shape{0}), Tensor(value_dt, Shape{0}));
}

const MapValue& map_of(const Tensor& t, const std::string& what) {
  KILN_ENSURE(is_map(t) && t.numel() == 1, "{}: expected a map, got {}", what,
              t.is_null() ? std::string("nothing") : std::string(name_of(t.dtype())));
  return t.data<MapValue>()[0];
}

int64_t map_find(const MapValue& map, int64_t key) {
  if (map.key_dt != DatumType::I64 || map.size() == 0) return -1;
  const int64_t* k = map.keys.data<int64_t>();
  const int64_t* it = std::lower_bound(k, k + map.size(), key);
  return it != k + map.size() && *it == key ? it - k : -1;
}

int64_t map_find(const MapValue& map, const std::string& key) {
  if (map.key_dt != DatumType::String || map.size() == 0) return -1;
  const std::string* k = map.keys.data<std::string>();
  const std::string* it = std::lower_bound(k, k + map.size(), key);
  return it != k + map.size() && *it == key ? it - k : -1;
}

Fact map_fact(DatumType key_dt, DatumType value_dt) {
  Fact f(DatumType::Map, std::vector<Dim>{});
  f.key_dt = key_dt;
  f.element = std::make_shared<const Fact>(value_dt, std::vector<Dim>{});
  return f;
}

std::string map_type_name(DatumType key_dt, DatumType value_dt) {
  return fmt::format("map({},{})", name_of(key_dt), name_of(value_dt));
}

std::string map_to_string(const MapValue& map, size_t max_values) {
  std::string out = "{";
  size_t n = std::min(static_cast<size_t>(map.size()), max_values);
  for (size_t i = 0; i < n; i++) {
    if (i) out += ", ";
    auto idx = static_cast<int64_t>(i);
    if (map.key_dt == DatumType::String)
      out += "\"" + map.keys.data<std::string>()[i] + "\"";
    else
      out += fmt::format("{}", map.keys.data<int64_t>()[i]);
    out += ": ";
    if (map.value_dt == DatumType::String)
      out += "\"" + map.values.data<std::string>()[i] + "\"";
    else if (is_float(map.value_dt))
      out += fmt::format("{}", map.values.value_as_double(idx));
    else
      out += fmt::format("{}", map.values.value_as_i64(idx));
  }
  if (static_cast<size_t>(map.size()) > n) out += ", ...";
  return out + "}";
}

}  // namespace kiln
