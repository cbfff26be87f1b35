// The NNEF primitives kiln implements: each builds the kiln ops an NNEF invocation means. This
// file holds sources, variables, constants and the element-wise ops; the other families live in
// io/nnef/<family>_primitives.cpp.
#include <cmath>

#include "io/nnef/dat_file.h"
#include "io/nnef/graph_quant.h"
#include "io/nnef/primitive_util.h"
#include "ops/core/identity.h"
#include "ops/elementwise/binary.h"
#include "ops/elementwise/cast.h"
#include "ops/elementwise/clip.h"
#include "ops/elementwise/unary.h"
#include "ops/elementwise/variadic.h"
#include "ops/elementwise/where.h"
#include "ops/linalg/einsum.h"
#include "ops/shape/range.h"

namespace kiln::nnef {

namespace prim {

namespace {

Primitive binary(ops::BinaryKind kind, bool negate = false) {
  return [kind, negate](Builder& b, const Args& a) {
    auto [x, y] = operands(b, a, "x", "y");
    Outlet z = b.add(std::make_shared<ops::Binary>(kind), {x, y});
    if (negate) z = b.add(std::make_shared<ops::Unary>(ops::UnaryKind::Not), {z});
    return one(z);
  };
}

Primitive variadic(ops::VariadicKind kind) {
  return [kind](Builder& b, const Args& a) {
    auto [x, y] = operands(b, a, "x", "y");
    return one(b.add(std::make_shared<ops::Variadic>(kind), {x, y}));
  };
}

Primitive unary(ops::UnaryKind kind, const char* alpha = nullptr) {
  return [kind, alpha](Builder& b, const Args& a) {
    ops::UnaryParams p;
    if (alpha) p.alpha = static_cast<float>(a.real(alpha));
    return one(b.add(std::make_shared<ops::Unary>(kind, p), {a.tensor(b, "x")}));
  };
}

// A tensor of NNEF shape [1, C] (or [C], or a scalar) as the rank-1 [C] tensor kiln ops take.
V external(Builder& b, const Args& a, DatumType dt) {
  Fact fact(dt, a.dims("shape"));
  return one(b.source(fact));
}

std::string dat_name(const std::string& label) {
  return label + ".dat";
}

Tensor dequantize(const Tensor& t, const Quantization& q, const std::string& label) {
  auto arg = [&](const char* n, double dflt) {
    auto it = q.args.find(n);
    return it == q.args.end() ? dflt : value_to_real(it->second, q.op + " " + n);
  };
  Tensor f = t.cast_to(DatumType::F64);
  double* x = f.data<double>();
  if (q.op == "zero_point_linear_quantize") {
    double zp = arg("zero_point", 0), scale = arg("scale", 1);
    for (int64_t i = 0; i < f.numel(); i++) x[i] = (x[i] - zp) * scale;
  } else if (q.op == "linear_quantize") {
    double lo = arg("min", 0), hi = arg("max", 1), bits = arg("bits", 8);
    double steps = std::pow(2.0, bits) - 1;
    for (int64_t i = 0; i < f.numel(); i++) x[i] = lo + x[i] * (hi - lo) / steps;
  } else {
    fail("variable '{}': unsupported quantization '{}'", label, q.op);
  }
  return f.cast_to(DatumType::F32);
}

V variable(Builder& b, const Args& a) {
  std::string label = a.string("label");
  std::string file = dat_name(label);
  auto it = b.files().find(file);
  KILN_ENSURE(it != b.files().end(), "variable '{}': no tensor file '{}' in the model", label,
              file);
  DatTensor dat = read_dat(it->second, file);
  Tensor t = dat.tensor;
  auto q = b.quantization.find(b.name_hint());
  std::vector<Dim> declared = a.dims("shape");
  std::vector<Dim> actual(t.shape().begin(), t.shape().end());
  KILN_ENSURE(declared == actual, "variable '{}': declared shape [{}] but '{}' holds [{}]", label,
              dims_to_string(declared), file, dims_to_string(actual));
  if (q != b.quantization.end() && is_integer(t.dtype())) {
    // The integers stay integers behind a DequantizeLinear (graph_quant.h).
    if (auto dq = dequantized_variable(b, t, q->second, label)) return one(*dq);
    t = dequantize(t, q->second, label);
  } else {
    // tract stores every integer tensor with the quantized item types: without an entry they
    // are plain integers, unless the graph declares the variable a scalar.
    KILN_ENSURE(!dat.quantized || a.type_arg() != "scalar",
                "variable '{}': quantized tensor without a graph.quant entry", label);
  }
  return one(b.constant(t));
}

V constant(Builder& b, const Args& a) {
  Shape shape = a.ints("shape");
  std::vector<double> xs = a.reals("value");
  DatumType dt = nnef_type(a.type_arg(), DatumType::F32);
  const Value& v = a.get("value");
  if (a.type_arg().empty() && v.kind == Value::Kind::Array && !v.items.empty() &&
      v.items[0].kind == Value::Kind::Integer)
    dt = DatumType::I64;
  if (a.type_arg().empty() && v.kind == Value::Kind::Array && !v.items.empty() &&
      v.items[0].kind == Value::Kind::Bool) {
    dt = DatumType::Bool;
    xs.clear();
    for (const auto& item : v.items) xs.push_back(item.boolean ? 1 : 0);
  }
  for (int64_t d : shape)
    KILN_ENSURE(d >= 0, "constant: negative dim in shape [{}]", shape_to_string(shape));
  int64_t n = shape_numel(shape);
  KILN_ENSURE(n <= (int64_t(1) << 24),
              "constant: shape [{}] is too large for a literal constant "
              "(use a variable)",
              shape_to_string(shape));
  KILN_ENSURE(xs.size() == 1 || int64_t(xs.size()) == n,
              "constant: {} values for shape [{}] ({} elements)", xs.size(), shape_to_string(shape),
              n);
  std::vector<double> full(static_cast<size_t>(n), xs.empty() ? 0.0 : xs[0]);
  if (int64_t(xs.size()) == n) full = xs;
  return one(b.constant(Tensor::from_vector<double>(shape, full).cast_to(dt)));
}

V clamp(Builder& b, const Args& a) {
  Outlet x = a.tensor(b, "x");
  const Value& lo = a.get("a");
  const Value& hi = a.get("b");
  if (lo.is_literal() && hi.is_literal())
    return one(b.add(
        std::make_shared<ops::Clip>(value_to_real(lo, "clamp"), value_to_real(hi, "clamp")), {x}));
  DatumType dt = b.fact(x).dt;
  Outlet m =
      b.add(std::make_shared<ops::Variadic>(ops::VariadicKind::Max), {x, b.to_tensor(lo, dt)});
  return one(
      b.add(std::make_shared<ops::Variadic>(ops::VariadicKind::Min), {m, b.to_tensor(hi, dt)}));
}

V select(Builder& b, const Args& a) {
  const Value& t = a.get("true_value");
  const Value& f = a.get("false_value");
  std::optional<DatumType> like;
  if (t.kind == Value::Kind::Tensor) like = b.fact(t.outlet).dt;
  if (!like && f.kind == Value::Kind::Tensor) like = b.fact(f.outlet).dt;
  return one(b.add(std::make_shared<ops::Where>(),
                   {a.tensor(b, "condition"), b.to_tensor(t, like), b.to_tensor(f, like)}));
}

V cast(Builder& b, const Args& a) {
  ops::CastOptions o;
  // tract_core_cast shares this primitive and declares neither: the defaults.
  o.saturate = a.has("saturate") ? a.boolean("saturate") : true;
  std::string round = a.has("round_mode") ? a.string("round_mode") : "up";
  KILN_ENSURE(round == "up" || round == "down" || round == "nearest",
              "kiln_core_cast: round_mode must be up, down or nearest, got '{}'", round);
  o.e8m0_round = round == "up" ? 0 : round == "down" ? 1 : 2;
  return one(b.add(std::make_shared<ops::Cast>(named_type(a.string("to"), a.op()), o),
                   {a.tensor(b, "input")}));
}

V range(Builder& b, const Args& a, const char* s, const char* e, const char* d) {
  std::optional<DatumType> like;
  for (const char* n : {s, e, d})
    if (a.get(n).kind == Value::Kind::Tensor) like = b.fact(a.get(n).outlet).dt;
  return one(b.add(std::make_shared<ops::Range>(),
                   {a.tensor(b, s, like), a.tensor(b, e, like), a.tensor(b, d, like)}));
}

V einsum(Builder& b, const Args& a, const std::string& equation) {
  return one(b.add(std::make_shared<ops::Einsum>(equation), a.tensors(b, "inputs")));
}

V kiln_unary(Builder& b, const Args& a) {
  std::string name = a.string("op");
  const auto& names = kiln_unary_names();
  for (size_t k = 0; k < names.size(); k++) {
    if (names[k] != name) continue;
    ops::UnaryParams p;
    p.alpha = static_cast<float>(a.real("alpha"));
    p.beta = static_cast<float>(a.real("beta"));
    p.gamma = static_cast<float>(a.real("gamma"));
    p.detect_positive = a.boolean("detect_positive");
    p.detect_negative = a.boolean("detect_negative");
    return one(b.add(std::make_shared<ops::Unary>(ops::UnaryKind(k), p), {a.tensor(b, "x")}));
  }
  fail("kiln_core_unary: unknown op '{}'", name);
}

V kiln_binary(Builder& b, const Args& a) {
  std::string name = a.string("op");
  auto [x, y] = operands(b, a, "x", "y");
  const auto& names = kiln_binary_names();
  for (size_t k = 0; k < names.size(); k++)
    if (names[k] == name)
      return one(b.add(std::make_shared<ops::Binary>(ops::BinaryKind(k)), {x, y}));
  fail("kiln_core_binary: unknown op '{}'", name);
}

std::map<std::string, Primitive> make_primitives() {
  using ops::BinaryKind;
  using ops::UnaryKind;
  std::map<std::string, Primitive> p;
  p["external"] = [](Builder& b, const Args& a) {
    return external(b, a, nnef_type(a.type_arg(), DatumType::F32));
  };
  p["tract_core_external"] = [](Builder& b, const Args& a) {
    return external(b, a, named_type(a.string("datum_type"), a.op()));
  };
  p["variable"] = variable;
  p["constant"] = constant;
  p["copy"] = [](Builder& b, const Args& a) {
    return one(b.add(std::make_shared<ops::Identity>(), {a.tensor(b, "x")}));
  };
  const std::pair<const char*, UnaryKind> unaries[] = {{"neg", UnaryKind::Neg},
                                                       {"rcp", UnaryKind::Reciprocal},
                                                       {"exp", UnaryKind::Exp},
                                                       {"log", UnaryKind::Log},
                                                       {"sin", UnaryKind::Sin},
                                                       {"cos", UnaryKind::Cos},
                                                       {"tan", UnaryKind::Tan},
                                                       {"asin", UnaryKind::Asin},
                                                       {"acos", UnaryKind::Acos},
                                                       {"atan", UnaryKind::Atan},
                                                       {"sinh", UnaryKind::Sinh},
                                                       {"cosh", UnaryKind::Cosh},
                                                       {"asinh", UnaryKind::Asinh},
                                                       {"acosh", UnaryKind::Acosh},
                                                       {"atanh", UnaryKind::Atanh},
                                                       {"abs", UnaryKind::Abs},
                                                       {"sign", UnaryKind::Sign},
                                                       {"not", UnaryKind::Not},
                                                       {"floor", UnaryKind::Floor},
                                                       {"ceil", UnaryKind::Ceil},
                                                       {"round", UnaryKind::Round},
                                                       {"sqrt", UnaryKind::Sqrt},
                                                       {"tanh", UnaryKind::Tanh},
                                                       {"sigmoid", UnaryKind::Sigmoid},
                                                       {"relu", UnaryKind::Relu},
                                                       {"softplus", UnaryKind::Softplus},
                                                       {"tract_core_erf", UnaryKind::Erf},
                                                       {"kiln_core_erf", UnaryKind::Erf}};
  for (const auto& [name, kind] : unaries) p[name] = unary(kind);
  p["elu"] = unary(UnaryKind::Elu, "alpha");
  p["leaky_relu"] = unary(UnaryKind::LeakyRelu, "alpha");
  p["prelu"] = [](Builder& b, const Args& a) {
    auto [x, y] = operands(b, a, "x", "alpha");
    return one(b.add(std::make_shared<ops::Binary>(ops::BinaryKind::PRelu), {x, y}));
  };
  p["add"] = binary(BinaryKind::Add);
  p["sub"] = binary(BinaryKind::Sub);
  p["mul"] = binary(BinaryKind::Mul);
  p["div"] = binary(BinaryKind::Div);
  p["pow"] = binary(BinaryKind::Pow);
  p["lt"] = binary(BinaryKind::Less);
  p["gt"] = binary(BinaryKind::Greater);
  p["le"] = binary(BinaryKind::LessOrEqual);
  p["ge"] = binary(BinaryKind::GreaterOrEqual);
  p["eq"] = binary(BinaryKind::Equal);
  p["ne"] = binary(BinaryKind::Equal, true);
  p["and"] = binary(BinaryKind::And);
  p["or"] = binary(BinaryKind::Or);
  p["min"] = variadic(ops::VariadicKind::Min);
  p["max"] = variadic(ops::VariadicKind::Max);
  p["select"] = select;
  p["clamp"] = clamp;
  p["tract_core_cast"] = cast;
  p["kiln_core_cast"] = cast;
  p["tract_core_range"] = [](Builder& b, const Args& a) {
    return range(b, a, "start", "end", "step");
  };
  p["kiln_core_range"] = [](Builder& b, const Args& a) {
    return range(b, a, "start", "limit", "delta");
  };
  p["tract_core_einsum"] = [](Builder& b, const Args& a) { return einsum(b, a, a.string("expr")); };
  p["kiln_core_einsum"] = [](Builder& b, const Args& a) {
    return einsum(b, a, a.string("equation"));
  };
  p["kiln_core_unary"] = kiln_unary;
  p["kiln_core_binary"] = kiln_binary;
  register_nn_primitives(p);
  register_shape_primitives(p);
  register_control_primitives(p);
  register_audio_primitives(p);
  register_recurrent_primitives(p);
  register_pulse_primitives(p);
  register_quant_primitives(p);
  return p;
}

}  // namespace

}  // namespace prim

const std::map<std::string, Primitive>& primitives() {
  static const std::map<std::string, Primitive> p = prim::make_primitives();
  return p;
}

}  // namespace kiln::nnef
