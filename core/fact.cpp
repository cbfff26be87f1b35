#include "core/fact.h"

#include <fmt/format.h>

#include <cmath>
#include <string>

#include "base/error.h"
#include "core/map_value.h"
#include "core/sequence.h"

namespace kiln {

Fact::Fact(DatumType dt, const Shape& concrete) : dt(dt) {
  for (int64_t d : concrete) shape.emplace_back(d);
}

Fact Fact::constant(Tensor value) {
  Fact f = is_container(value.dtype()) ? fact_of_value(value) : Fact(value.dtype(), value.shape());
  if ((is_integer(value.dtype())) && value.rank() <= 1 && value.numel() <= 64) {
    std::vector<Dim> dims;
    for (int64_t v : value.to_i64_vector()) dims.emplace_back(v);
    f.dims_value = std::move(dims);
  }
  f.value = std::make_shared<const Tensor>(std::move(value));
  return f;
}

namespace {

// "16000" or "1,2,3" for a fact of this type and concrete shape.
Tensor parse_fact_value(const Fact& f, std::string_view values, std::string_view text) {
  auto shape = f.try_concrete_shape();
  KILN_ENSURE(shape, "fact '{}': a value needs a concrete shape", text);
  KILN_ENSURE(f.dt != DatumType::String, "fact '{}': string values are not supported", text);
  std::vector<double> numbers;
  size_t start = 0;
  while (true) {
    size_t comma = values.find(',', start);
    std::string item(values.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (item == "true" || item == "false") {
      numbers.push_back(item == "true" ? 1 : 0);
    } else {
      size_t used = 0;
      double v = 0;
      try {
        v = std::stod(item, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      KILN_ENSURE(!item.empty() && used == item.size(), "fact '{}': '{}' is not a number", text,
                  item);
      // The range check comes first: converting a double outside int64 is undefined.
      KILN_ENSURE(is_float(f.dt) || (v >= -0x1p63 && v < 0x1p63 && v == std::trunc(v)),
                  "fact '{}': {} is not an integer of at most 64 bits", text, item);
      numbers.push_back(v);
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  int64_t numel = 1;
  for (int64_t d : *shape) {
    KILN_ENSURE(!__builtin_mul_overflow(numel, d, &numel), "fact '{}': too many elements", text);
  }
  KILN_ENSURE(static_cast<int64_t>(numbers.size()) == numel,
              "fact '{}': {} values for a shape of {} elements", text, numbers.size(), numel);
  if (is_float(f.dt)) return Tensor::from_vector<double>(*shape, numbers).cast_to(f.dt);
  std::vector<int64_t> ints(numbers.begin(), numbers.end());
  return Tensor::from_vector<int64_t>(*shape, ints).cast_to(f.dt);
}

}  // namespace

// A value after "=" makes a constant: "i64=16000", "2,i64=3,4" (comma-separated, row-major).
Fact Fact::parse(std::string_view text) {
  if (size_t eq = text.find('='); eq != std::string_view::npos) {
    Fact shape_and_type = parse(text.substr(0, eq));
    Fact f = constant(parse_fact_value(shape_and_type, text.substr(eq + 1), text));
    return f;
  }
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    parts.push_back(text.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  Fact f;
  f.dt = DatumType::F32;
  if (!parts.empty()) {
    if (auto dt = parse_datum_type(parts.back())) {
      f.dt = *dt;
      parts.pop_back();
    }
  }
  for (auto p : parts) {
    KILN_ENSURE(!p.empty(), "empty dimension in fact '{}'", text);
    Dim d = Dim::parse(p);
    if (auto v = d.as_int()) KILN_ENSURE(*v >= 0, "negative dimension in fact '{}'", text);
    f.shape.push_back(std::move(d));
  }
  return f;
}

bool Fact::is_concrete() const {
  for (const auto& d : shape)
    if (!d.is_int()) return false;
  return true;
}

Shape Fact::concrete_shape() const {
  Shape s;
  s.reserve(shape.size());
  for (const auto& d : shape) s.push_back(d.to_int());
  return s;
}

std::optional<Shape> Fact::try_concrete_shape() const {
  if (!is_concrete()) return std::nullopt;
  return concrete_shape();
}

std::optional<std::vector<int64_t>> Fact::known_i64_values() const {
  if (value && (is_integer(value->dtype()) || value->dtype() == DatumType::Bool))
    return value->to_i64_vector();
  if (dims_value) {
    std::vector<int64_t> out;
    for (const auto& d : *dims_value) {
      auto v = d.as_int();
      if (!v) return std::nullopt;
      out.push_back(*v);
    }
    return out;
  }
  return std::nullopt;
}

std::string Fact::to_string() const {
  if (dt == DatumType::Map && element) return map_type_name(key_dt, element->dt);
  if (is_container(dt) && element)
    return fmt::format("{}({})", dt == DatumType::Sequence ? "seq" : "optional",
                       element->to_string());
  if (!rank_known) return fmt::format("?,{}", name_of(dt));
  std::string out = dims_to_string(shape);
  if (!out.empty()) out += ",";
  out += name_of(dt);
  if (value && value->numel() == 1 && dt != DatumType::String && !is_container(dt)) {
    out += "=" + (is_float(dt) ? fmt::format("{}", value->value_as_double(0))
                               : fmt::format("{}", value->value_as_i64(0)));
  }
  return out;
}

bool Fact::same_type_and_shape(const Fact& other) const {
  if (dt != other.dt || shape != other.shape || rank_known != other.rank_known) return false;
  if (dt == DatumType::Map && key_dt != other.key_dt) return false;
  if (element && other.element) return element->same_type_and_shape(*other.element);
  return !element && !other.element;
}

}  // namespace kiln
