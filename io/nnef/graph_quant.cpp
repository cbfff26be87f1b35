#include "io/nnef/graph_quant.h"

#include <fmt/format.h>

#include <cmath>
#include <set>

#include "base/error.h"
#include "ops/quant/dequantize_linear.h"
#include "ops/quant/quantize_linear.h"

namespace kiln::nnef {

namespace {

const Value* arg(const Quantization& q, const char* name) {
  auto it = q.args.find(name);
  return it == q.args.end() ? nullptr : &it->second;
}

int64_t int_arg(const Quantization& q, const char* name) {
  const Value* v = arg(q, name);
  return v->integer.to_int();
}

double real_arg(const Quantization& q, const char* name) {
  return value_to_real(*arg(q, name), name);
}

DatumType int_type(int64_t bits, bool is_signed) {
  switch (bits) {
    case 8:
      return is_signed ? DatumType::I8 : DatumType::U8;
    case 16:
      return is_signed ? DatumType::I16 : DatumType::U16;
    default:
      return is_signed ? DatumType::I32 : DatumType::U32;
  }
}

Tensor zero_point_tensor(DatumType dt, int64_t z) {
  Tensor t(dt, {});
  switch (dt) {
    case DatumType::I8:
      t.data<int8_t>()[0] = static_cast<int8_t>(z);
      break;
    case DatumType::U8:
      t.data<uint8_t>()[0] = static_cast<uint8_t>(z);
      break;
    case DatumType::I16:
      t.data<int16_t>()[0] = static_cast<int16_t>(z);
      break;
    case DatumType::U16:
      t.data<uint16_t>()[0] = static_cast<uint16_t>(z);
      break;
    case DatumType::I32:
      t.data<int32_t>()[0] = static_cast<int32_t>(z);
      break;
    default:
      t.data<uint32_t>()[0] = static_cast<uint32_t>(z);
      break;
  }
  return t;
}

}  // namespace

void validate_quantization(const std::string& tensor, const Quantization& q) {
  auto where = [&] { return fmt::format("graph.quant entry '{}' ({})", tensor, q.op); };
  std::set<std::string> required, optional;
  if (q.op == "zero_point_linear_quantize") {
    required = {"zero_point", "scale", "bits", "signed"};
    optional = {"symmetric"};
  } else if (q.op == "linear_quantize") {
    required = {"min", "max", "bits"};
    optional = {"signed"};
  } else {
    fail(
        "graph.quant entry '{}': unknown quantization '{}' (zero_point_linear_quantize or "
        "linear_quantize)",
        tensor, q.op);
  }
  for (const auto& [k, v] : q.args) {
    KILN_ENSURE(required.count(k) || optional.count(k), "{}: unknown argument '{}'", where(), k);
    const bool want_bool = k == "signed" || k == "symmetric";
    const bool want_int = k == "bits" || k == "zero_point";
    if (want_bool)
      KILN_ENSURE(v.kind == Value::Kind::Bool, "{}: '{}' must be true or false", where(), k);
    else if (want_int)
      KILN_ENSURE(v.kind == Value::Kind::Integer && v.integer.is_int(),
                  "{}: '{}' must be an integer", where(), k);
    else
      KILN_ENSURE(v.kind == Value::Kind::Integer || v.kind == Value::Kind::Real,
                  "{}: '{}' must be a number", where(), k);
  }
  for (const auto& k : required)
    KILN_ENSURE(q.args.count(k), "{}: argument '{}' is missing", where(), k);
  const int64_t bits = int_arg(q, "bits");
  KILN_ENSURE(bits == 8 || bits == 16 || bits == 32, "{}: bits = {} (kiln reads 8, 16 or 32)",
              where(), bits);
  if (q.op == "zero_point_linear_quantize") {
    const double scale = real_arg(q, "scale");
    KILN_ENSURE(std::isfinite(scale) && scale > 0, "{}: scale must be positive, got {}", where(),
                scale);
    const bool is_signed = arg(q, "signed")->boolean;
    const int64_t z = int_arg(q, "zero_point");
    const double lo = is_signed ? -std::ldexp(1.0, int(bits) - 1) : 0.0;
    const double hi =
        is_signed ? std::ldexp(1.0, int(bits) - 1) - 1 : std::ldexp(1.0, int(bits)) - 1;
    KILN_ENSURE(z >= lo && z <= hi, "{}: zero_point {} outside the {}-bit {} range", where(), z,
                bits, is_signed ? "signed" : "unsigned");
  } else {
    const double lo = real_arg(q, "min"), hi = real_arg(q, "max");
    KILN_ENSURE(std::isfinite(lo) && std::isfinite(hi) && lo < hi,
                "{}: needs finite min < max, got min = {}, max = {}", where(), lo, hi);
  }
}

std::optional<Outlet> dequantized_variable(Builder& b, const Tensor& ints, const Quantization& q,
                                           const std::string& label) {
  if (q.op != "zero_point_linear_quantize") return std::nullopt;
  const int64_t bits = int_arg(q, "bits");
  const bool is_signed = arg(q, "signed")->boolean;
  const DatumType dt = ints.dtype();
  KILN_ENSURE(dt == int_type(bits, is_signed),
              "variable '{}': graph.quant says {}-bit {} integers but '{}.dat' holds {}", label,
              bits, is_signed ? "signed" : "unsigned", label, name_of(dt));
  Outlet x = b.constant(ints);
  Outlet scale = b.constant(Tensor::scalar<float>(static_cast<float>(real_arg(q, "scale"))));
  Outlet zp = b.constant(zero_point_tensor(dt, int_arg(q, "zero_point")));
  return b.add(std::make_shared<ops::DequantizeLinear>(1, 0, std::nullopt), {x, scale, zp});
}

Outlet fake_quantize(Builder& b, Outlet x, const Quantization& q, const std::string& tensor) {
  const DatumType dt = b.fact(x).dt;
  if (!is_float(dt)) return x;
  KILN_ENSURE(q.op == "zero_point_linear_quantize",
              "graph.quant entry '{}': {} is only read on variables (a tensor computed in the "
              "graph needs zero_point_linear_quantize)",
              tensor, q.op);
  const int64_t bits = int_arg(q, "bits");
  KILN_ENSURE(bits == 8, "graph.quant entry '{}': {}-bit activations are not supported (8 bits)",
              tensor, bits);
  const DatumType qdt = arg(q, "signed")->boolean ? DatumType::I8 : DatumType::U8;
  Outlet scale = b.constant(Tensor::scalar<float>(static_cast<float>(real_arg(q, "scale"))));
  Outlet zp = b.constant(zero_point_tensor(qdt, int_arg(q, "zero_point")));
  Outlet quantized = b.add(std::make_shared<ops::QuantizeLinear>(1, qdt), {x, scale, zp});
  return b.add(std::make_shared<ops::DequantizeLinear>(1, 0, std::nullopt), {quantized, scale, zp});
}

std::string zero_point_entry(const std::string& tensor, int64_t zero_point, float scale, int bits,
                             bool is_signed) {
  return fmt::format(
      "\"{}\": zero_point_linear_quantize(zero_point = {}, scale = {}, bits = {}, signed = {}, "
      "symmetric = {});\n",
      tensor, zero_point, scale, bits, is_signed ? "true" : "false",
      zero_point == 0 ? "true" : "false");
}

}  // namespace kiln::nnef
