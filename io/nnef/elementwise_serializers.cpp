// NNEF serializers of the element-wise ops (and Identity, Where, Cast, Einsum, Range).
#include <cmath>

#include "io/nnef/builder.h"
#include "io/nnef/serializer_util.h"
#include "ops/elementwise/binary.h"
#include "ops/elementwise/cast.h"
#include "ops/elementwise/unary.h"
#include "ops/elementwise/variadic.h"

namespace kiln::nnef::ser {

namespace {

bool write_unary(Ctx& c, const Node& n) {
  const auto& op = op_as<ops::Unary>(n);
  using K = ops::UnaryKind;
  static const std::map<K, const char*> standard = {
      {K::Abs, "abs"},         {K::Neg, "neg"},        {K::Exp, "exp"},   {K::Log, "log"},
      {K::Sqrt, "sqrt"},       {K::Reciprocal, "rcp"}, {K::Sin, "sin"},   {K::Cos, "cos"},
      {K::Sigmoid, "sigmoid"}, {K::Tanh, "tanh"},      {K::Relu, "relu"}, {K::Softplus, "softplus"},
      {K::Sign, "sign"},       {K::Round, "round"},    {K::Ceil, "ceil"}, {K::Floor, "floor"},
      {K::Not, "not"}};
  std::string x = c.tensor(in(n, 0));
  auto it = standard.find(op.kind());
  if (it != standard.end()) {
    c.assign(n, 0, fmt::format("{}({})", it->second, x));
  } else if (op.kind() == K::Elu) {
    c.assign(n, 0, fmt::format("elu({}, alpha = {})", x, nnef_real(op.params().alpha)));
  } else if (op.kind() == K::LeakyRelu) {
    c.assign(n, 0, fmt::format("leaky_relu({}, alpha = {})", x, nnef_real(op.params().alpha)));
  } else if (op.kind() == K::Mish) {
    // Standard NNEF: mul(x, tanh(softplus(x))) (reading it back, fuse-mish makes the Mish again).
    const std::string base = c.planned_name({n.id, 0});
    std::string sp = c.temp(base + "_softplus", fmt::format("softplus({})", x));
    std::string t = c.temp(base + "_tanh", fmt::format("tanh({})", sp));
    c.assign(n, 0, fmt::format("mul({}, {})", x, t));
  } else if (op.kind() == K::Erf) {
    c.use_extension("kiln_registry kiln_core", "Erf");
    c.assign(n, 0, fmt::format("kiln_core_erf({})", x));
  } else {
    const std::string& kind = kiln_unary_names().at(size_t(op.kind()));
    c.use_extension("kiln_registry kiln_core", kind);
    const auto& p = op.params();
    c.assign(
        n, 0,
        fmt::format("kiln_core_unary({}, op = {}, alpha = {}, beta = {}, gamma = {}, "
                    "detect_positive = {}, detect_negative = {})",
                    x, nnef_string(kind), nnef_real(p.alpha), nnef_real(p.beta), nnef_real(p.gamma),
                    p.detect_positive ? "true" : "false", p.detect_negative ? "true" : "false"));
  }
  return true;
}

// Silu in standard NNEF: mul(x, sigmoid(x)) (reading it back, fuse-silu makes the Silu again).
bool write_silu(Ctx& c, const Node& n) {
  std::string x = c.tensor(in(n, 0));
  std::string s = c.temp(c.planned_name({n.id, 0}) + "_sigmoid", fmt::format("sigmoid({})", x));
  c.assign(n, 0, fmt::format("mul({}, {})", x, s));
  return true;
}

bool write_binary(Ctx& c, const Node& n) {
  const auto& op = op_as<ops::Binary>(n);
  if (OpAttrs(n).has("axis")) return false;  // opset < 7 broadcasting
  using K = ops::BinaryKind;
  static const std::map<K, const char*> standard = {
      {K::Add, "add"},           {K::Sub, "sub"},  {K::Mul, "mul"},    {K::Div, "div"},
      {K::Pow, "pow"},           {K::Less, "lt"},  {K::Greater, "gt"}, {K::LessOrEqual, "le"},
      {K::GreaterOrEqual, "ge"}, {K::Equal, "eq"}, {K::And, "and"},    {K::Or, "or"},
      {K::PRelu, "prelu"}};
  size_t rank = out_rank(n);
  std::string x = c.tensor_of_rank(in(n, 0), rank), y = c.tensor_of_rank(in(n, 1), rank);
  // Integer division truncates in kiln and NNEF alike; float operands only for literals.
  auto it = standard.find(op.kind());
  if (it != standard.end()) {
    c.assign(n, 0, fmt::format("{}({}, {})", it->second, x, y));
  } else {
    const std::string& kind = kiln_binary_names().at(size_t(op.kind()));
    c.use_extension("kiln_registry kiln_core", kind);
    c.assign(n, 0, fmt::format("kiln_core_binary({}, {}, op = {})", x, y, nnef_string(kind)));
  }
  return true;
}

bool write_variadic(Ctx& c, const Node& n) {
  const auto& op = op_as<ops::Variadic>(n);
  const char* f = op.kind() == ops::VariadicKind::Min   ? "min"
                  : op.kind() == ops::VariadicKind::Max ? "max"
                                                        : "add";
  size_t rank = out_rank(n);
  std::string acc = c.tensor_of_rank(in(n, 0), rank);
  for (size_t i = 1; i < n.inputs.size(); i++) {
    std::string expr = fmt::format("{}({}, {})", f, acc, c.tensor_of_rank(in(n, i), rank));
    acc = i + 1 == n.inputs.size() && op.kind() != ops::VariadicKind::Mean
              ? expr
              : c.temp(c.planned_name({n.id, 0}) + "_acc", expr);
  }
  if (op.kind() == ops::VariadicKind::Mean) {
    c.assign(n, 0, fmt::format("div({}, {})", acc, nnef_real(double(n.inputs.size()))));
  } else if (n.inputs.size() == 1) {
    c.assign(n, 0, fmt::format("copy({})", acc));
  } else {
    c.assign(n, 0, acc);
  }
  return true;
}

std::optional<double> scalar_input(Ctx& c, const Node& n, size_t i) {
  if (!has_input(n, i)) return std::nullopt;
  const Fact& f = c.fact(in(n, i));
  KILN_ENSURE(f.value && f.value->numel() == 1, "Clip bounds must be constants for NNEF");
  return f.value->value_as_double(0);
}

bool write_clip(Ctx& c, const Node& n) {
  OpAttrs attrs(n);
  std::optional<double> lo, hi;
  if (attrs.has("min")) lo = attrs.real("min", 0);
  if (attrs.has("max")) hi = attrs.real("max", 0);
  if (auto v = scalar_input(c, n, 1)) lo = v;
  if (auto v = scalar_input(c, n, 2)) hi = v;
  std::string x = c.tensor(in(n, 0));
  if (lo && hi)
    c.assign(n, 0, fmt::format("clamp({}, {}, {})", x, nnef_real(*lo), nnef_real(*hi)));
  else if (lo)
    c.assign(n, 0, fmt::format("max({}, {})", x, nnef_real(*lo)));
  else if (hi)
    c.assign(n, 0, fmt::format("min({}, {})", x, nnef_real(*hi)));
  else
    c.assign(n, 0, fmt::format("copy({})", x));
  return true;
}

bool write_copy(Ctx& c, const Node& n) {
  // Inference Dropout is the identity (its mask output, when used, is refused as unwritten);
  // a training_mode input that is not a constant false makes it random.
  if (n.op->name() == "Dropout" && has_input(n, 2)) {
    const Fact& t = c.fact(in(n, 2));
    if (!t.value || t.value->value_as_double(0) != 0) return false;
  }
  c.assign(n, 0, fmt::format("copy({})", c.tensor(in(n, 0))));
  return true;
}

bool write_where(Ctx& c, const Node& n) {
  size_t rank = out_rank(n);
  c.assign(n, 0,
           fmt::format("select({}, {}, {})", c.tensor_of_rank(in(n, 0), rank),
                       c.tensor_of_rank(in(n, 1), rank), c.tensor_of_rank(in(n, 2), rank)));
  return true;
}

bool write_cast(Ctx& c, const Node& n) {
  const auto& op = op_as<ops::Cast>(n);
  DatumType to = op.to() ? *op.to() : c.fact(in(n, 1)).dt;  // CastLike: input 1's type
  c.use_extension("kiln_registry kiln_core", "Cast");
  const auto& o = op.options();
  std::string extra;
  if (!o.saturate) extra += ", saturate = false";
  if (o.e8m0_round)
    extra += o.e8m0_round == 1 ? ", round_mode = 'down'" : ", round_mode = 'nearest'";
  c.assign(n, 0,
           fmt::format("kiln_core_cast({}, to = '{}'{})", c.tensor(in(n, 0)), name_of(to), extra));
  return true;
}

bool write_einsum(Ctx& c, const Node& n) {
  std::string equation = OpAttrs(n).str("equation");
  std::string values;
  for (size_t i = 0; i < n.inputs.size(); i++) values += (i ? ", " : "") + c.identifier(in(n, i));
  c.use_extension("kiln_registry kiln_core", "Einsum");
  c.assign(n, 0,
           fmt::format("kiln_core_einsum([{}], equation = {})", values, nnef_string(equation)));
  return true;
}

bool write_range(Ctx& c, const Node& n) {
  c.use_extension("kiln_registry kiln_core", "Range");
  c.assign(n, 0,
           fmt::format("kiln_core_range({}, {}, {})", c.identifier(in(n, 0)),
                       c.identifier(in(n, 1)), c.identifier(in(n, 2))));
  return true;
}

}  // namespace

void register_elementwise_serializers(std::map<std::string, Serializer>& s) {
  for (int k = 0; k <= int(ops::UnaryKind::BitwiseNot); k++)
    s[ops::Unary(ops::UnaryKind(k)).name()] = write_unary;
  for (int k = 0; k <= int(ops::BinaryKind::PRelu); k++)
    s[ops::Binary(ops::BinaryKind(k)).name()] = write_binary;
  for (auto k : {ops::VariadicKind::Sum, ops::VariadicKind::Mean, ops::VariadicKind::Min,
                 ops::VariadicKind::Max})
    s[ops::Variadic(k).name()] = write_variadic;
  s["Silu"] = write_silu;
  s[ops::Unary(ops::UnaryKind::Mish).name()] = write_unary;
  s["Clip"] = write_clip;
  s["Identity"] = write_copy;
  s["Dropout"] = write_copy;
  s["Where"] = write_where;
  s["Cast"] = write_cast;
  s["Einsum"] = write_einsum;
  s["Range"] = write_range;
  s["CastLike"] = write_cast;
}

}  // namespace kiln::nnef::ser
