#include "ops/elementwise/cast.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "ops/elementwise/util.h"

namespace kiln::ops {

namespace {

// Shortest decimal that reads back as the same 16-bit float (numpy prints float16 0.1 as "0.1",
// not as the float32 digits of its exact value).
template <typename H>
std::string half_to_string(H v) {
  float f = static_cast<float>(v);
  if (std::isnan(f) || std::isinf(f)) return float_to_string(f, true);
  char buf[64];
  for (int precision = 0; precision < 9; precision++) {
    std::snprintf(buf, sizeof(buf), "%.*e", precision, static_cast<double>(f));
    float parsed = std::strtof(buf, nullptr);
    if (H(parsed).bits == v.bits) return float_to_string(parsed, true);
  }
  return float_to_string(f, true);
}

template <typename To, typename From>
To convert(const From& v);

// Narrow types: floats through float (rounded to nearest even, saturated or not as the options
// say); sub-byte integers keep the low bits of the integer (two's complement wrap, as ONNX casts
// between integer types do), floats first rounded half away from zero (as ONNX Runtime does).
template <typename To, typename From>
To convert_narrow(const From& v, const CastOptions& o) {
  if constexpr (is_minifloat_v<To>) {
    float f;
    if constexpr (is_minifloat_v<From>)
      f = static_cast<float>(v);
    else if constexpr (is_narrow_int_v<From>)
      f = static_cast<float>(static_cast<int>(v));
    else
      f = convert<float, From>(v);
    return To::from_bits(float_to_minifloat(To::format, f, o.saturate, o.e8m0_round));
  } else if constexpr (is_narrow_int_v<To>) {
    if constexpr (std::is_same_v<From, std::string>) {
      return convert_narrow<To, double>(std::strtod(v.c_str(), nullptr), o);
    } else if constexpr (std::is_integral_v<From> || is_narrow_int_v<From>) {
      return To(static_cast<int64_t>(v));
    } else {
      double d = std::is_same_v<From, double>
                     ? static_cast<double>(v)
                     : static_cast<double>(static_cast<float>(static_cast<compute_t<From>>(v)));
      if (std::isnan(d)) return To(0);
      return To(static_cast<int64_t>(std::round(std::clamp(d, -0x1p62, 0x1p62))));
    }
  } else if constexpr (is_minifloat_v<From>) {
    return convert<To, float>(static_cast<float>(v));
  } else {
    return convert<To, int32_t>(static_cast<int32_t>(v));
  }
}

template <typename To, typename From>
To convert(const From& v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<To, std::string>) {
    if constexpr (std::is_same_v<From, bool>) {
      return v ? "True" : "False";
    } else if constexpr (std::is_integral_v<From>) {
      return std::to_string(v);
    } else if constexpr (is_half_v<From>) {
      return half_to_string(v);
    } else {
      return float_to_string(static_cast<double>(v), std::is_same_v<From, float>);
    }
  } else if constexpr (std::is_same_v<From, std::string>) {
    const char* s = v.c_str();
    if constexpr (std::is_same_v<To, bool>) {
      if (v == "True" || v == "true") return true;
      if (v == "False" || v == "false") return false;
      return std::strtod(s, nullptr) != 0.0;
    } else if constexpr (std::is_signed_v<To> && std::is_integral_v<To>) {
      return static_cast<To>(std::strtoll(s, nullptr, 10));
    } else if constexpr (std::is_integral_v<To>) {
      return static_cast<To>(std::strtoull(s, nullptr, 10));
    } else if constexpr (std::is_same_v<To, double>) {
      return std::strtod(s, nullptr);
    } else {
      return from_compute<To>(std::strtof(s, nullptr));
    }
  } else if constexpr (std::is_same_v<To, bool>) {
    auto c = static_cast<compute_t<From>>(v);
    return c != compute_t<From>(0);
  } else if constexpr (is_half_v<To>) {
    return To(static_cast<float>(static_cast<compute_t<From>>(v)));
  } else if constexpr (std::is_integral_v<To> && !std::is_integral_v<From>) {
    // Out-of-range float -> int is undefined in C++ (and in ONNX): saturate, NaN -> 0.
    double d = static_cast<double>(static_cast<compute_t<From>>(v));
    if (std::isnan(d)) return To(0);
    if (d >= static_cast<double>(std::numeric_limits<To>::max()))
      return std::numeric_limits<To>::max();
    if (d <= static_cast<double>(std::numeric_limits<To>::lowest()))
      return std::numeric_limits<To>::lowest();
    return static_cast<To>(d);
  } else {
    return static_cast<To>(static_cast<compute_t<From>>(v));
  }
}

}  // namespace

std::string float_to_string(double value, bool single_precision) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buf[64];
  std::to_chars_result r =
      single_precision
          ? std::to_chars(buf, buf + sizeof(buf), static_cast<float>(value),
                          std::chars_format::scientific)
          : std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::scientific);
  std::string sci(buf, r.ptr);
  // sci is "[-]d[.ddd]e[+-]XX": split into sign, digits and decimal exponent.
  size_t e = sci.find('e');
  std::string mantissa = sci.substr(0, e);
  int exponent = std::atoi(sci.c_str() + e + 1);
  bool negative = !mantissa.empty() && mantissa[0] == '-';
  if (negative) mantissa.erase(0, 1);
  std::string digits;
  for (char c : mantissa)
    if (c != '.') digits += c;
  std::string out = negative ? "-" : "";
  if (value != 0 && (exponent < -4 || exponent >= 16)) {
    out += digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    out += exponent < 0 ? "e-" : "e+";
    int ax = std::abs(exponent);
    if (ax < 10) out += "0";
    out += std::to_string(ax);
    return out;
  }
  if (exponent < 0) {
    out += "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
  } else if (static_cast<size_t>(exponent) + 1 >= digits.size()) {
    out += digits + std::string(static_cast<size_t>(exponent) + 1 - digits.size(), '0') + ".0";
  } else {
    size_t point = static_cast<size_t>(exponent) + 1;
    out += digits.substr(0, point) + "." + digits.substr(point);
  }
  return out;
}

Attributes Cast::attributes() const {
  Attributes a;
  if (to_) a.push_back({"to", std::string(name_of(*to_))});
  if (!options_.saturate) a.push_back({"saturate", "0"});
  if (options_.e8m0_round != 0)
    a.push_back({"round_mode", options_.e8m0_round == 1 ? "down" : "nearest"});
  return a;
}

std::vector<Fact> Cast::output_facts(const FactRefs& inputs) const {
  if (to_) {
    expect_inputs(name(), inputs.size(), 1, 1);
  } else {
    expect_inputs(name(), inputs.size(), 2, 2);
  }
  const Fact& x = required(inputs, 0, name());
  DatumType to = to_ ? *to_ : required(inputs, 1, name()).dt;
  Fact out(to, x.shape);
  if (x.dims_value && (is_integer(x.dt) || x.dt == DatumType::Bool) && is_integer(to))
    out.dims_value = x.dims_value;
  return {out};
}

void Cast::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  DatumType to = to_ ? *to_ : required(inputs, 1, name()).dtype();
  if (x.dtype() == to) {
    ctx.set_output_view(0, x, x.shape());  // no copy of the shape: no allocation
    return;
  }
  Tensor& out = ctx.output(0, to, x.shape());
  dispatch_any(x.dtype(), [&](auto from_tag) {
    using From = typename decltype(from_tag)::type;
    dispatch_any(to, [&](auto to_tag) {
      using To = typename decltype(to_tag)::type;
      const From* src = x.data<From>();
      To* dst = out.data<To>();
      if constexpr (is_narrow_v<To> || is_narrow_v<From>) {
        for (int64_t i = 0; i < x.numel(); i++) dst[i] = convert_narrow<To, From>(src[i], options_);
      } else {
        for (int64_t i = 0; i < x.numel(); i++) dst[i] = convert<To, From>(src[i]);
      }
    });
  });
}

}  // namespace kiln::ops
