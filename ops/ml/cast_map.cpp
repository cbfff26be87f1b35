#include "ops/ml/cast_map.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include "base/error.h"
#include "core/map_value.h"

namespace kiln::ops::ml {

namespace {

DatumType out_type(CastMapTo to) {
  return to == CastMapTo::Float   ? DatumType::F32
         : to == CastMapTo::Int64 ? DatumType::I64
                                  : DatumType::String;
}

const char* to_name(CastMapTo to) {
  return to == CastMapTo::Float ? "TO_FLOAT" : to == CastMapTo::Int64 ? "TO_INT64" : "TO_STRING";
}

// One value of the map (element i of `values`) written as element j of `out`.
void cast_value(const Tensor& values, int64_t i, Tensor& out, int64_t j) {
  DatumType from = values.dtype();
  switch (out.dtype()) {
    case DatumType::String: {
      std::string& s = out.data<std::string>()[j];
      if (from == DatumType::String)
        s = values.data<std::string>()[i];
      else if (from == DatumType::I64)
        s = std::to_string(values.data<int64_t>()[i]);
      else
        s = fmt::format("{:f}", values.value_as_double(i));  // as std::to_string, C's "%f"
      return;
    }
    case DatumType::F32: {
      float& f = out.data<float>()[j];
      if (from != DatumType::String) {
        f = static_cast<float>(values.value_as_double(i));
        return;
      }
      const std::string& s = values.data<std::string>()[i];
      char* end = nullptr;
      errno = 0;
      f = std::strtof(s.c_str(), &end);
      KILN_ENSURE(!s.empty() && end != s.c_str() && errno == 0,
                  "CastMap: the string \"{}\" is not a float", s);
      return;
    }
    default: {  // I64
      int64_t& v = out.data<int64_t>()[j];
      if (from == DatumType::String) {
        const std::string& s = values.data<std::string>()[i];
        char* end = nullptr;
        errno = 0;
        v = std::strtoll(s.c_str(), &end, 10);
        KILN_ENSURE(!s.empty() && end != s.c_str() && errno == 0,
                    "CastMap: the string \"{}\" is not an int64", s);
      } else if (from == DatumType::I64) {
        v = values.data<int64_t>()[i];
      } else {
        double d = values.value_as_double(i);
        KILN_ENSURE(std::isfinite(d) && std::abs(d) < 9.2e18, "CastMap: {} does not fit an int64",
                    d);
        v = static_cast<int64_t>(d);  // toward zero, as a C cast
      }
      return;
    }
  }
}

}  // namespace

CastMap::CastMap(CastMapTo to, bool sparse, int64_t max_map)
    : to_(to), sparse_(sparse), max_map_(max_map) {
  KILN_ENSURE(!sparse_ || max_map_ > 0, "CastMap: max_map must be > 0 for SPARSE, got {}",
              max_map_);
}

Attributes CastMap::attributes() const {
  Attributes a = {{"cast_to", to_name(to_)}, {"map_form", sparse_ ? "SPARSE" : "DENSE"}};
  if (sparse_) a.emplace_back("max_map", std::to_string(max_map_));
  return a;
}

std::vector<Fact> CastMap::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(x.dt == DatumType::Map && x.element && x.key_dt == DatumType::I64,
              "CastMap: input must be a map with int64 keys, got {}", x.to_string());
  Dim k = sparse_ ? Dim(max_map_) : Dim::fresh();
  return {Fact(out_type(to_), std::vector<Dim>{Dim(1), k})};
}

void CastMap::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const MapValue& m = map_of(required(inputs, 0, name()), name());
  KILN_ENSURE(m.key_dt == DatumType::I64, "CastMap: input must be a map with int64 keys, got {}",
              map_type_name(m.key_dt, m.value_dt));
  int64_t n = m.size();
  int64_t k = sparse_ ? max_map_ : n;
  Tensor& y = ctx.output(0, out_type(to_), Shape{1, k});
  if (!sparse_) {
    for (int64_t i = 0; i < n; i++) cast_value(m.values, i, y, i);
    return;
  }
  const int64_t* keys = m.keys.data<int64_t>();
  KILN_ENSURE(n == 0 || keys[0] >= 0, "CastMap: negative key {} in SPARSE form", keys[0]);
  // Pad values as ONNX Runtime writes them.
  for (int64_t j = 0; j < k; j++) {
    if (to_ == CastMapTo::String)
      y.data<std::string>()[j] = "0.f";
    else if (to_ == CastMapTo::Float)
      y.data<float>()[j] = 0.0f;
    else
      y.data<int64_t>()[j] = 0;
  }
  for (int64_t i = 0; i < n && keys[i] < k; i++) cast_value(m.values, i, y, keys[i]);
}

Cost CastMap::cost(const FactRefs&) const {
  Cost c;
  c.other = sparse_ ? Dim(max_map_) : Dim(1);  // a dense map's size is known only at run time
  return c;
}

}  // namespace kiln::ops::ml
