#include "io/nnef/builder.h"

#include <cmath>

#include "base/error.h"

namespace kiln::nnef {

std::string Value::describe() const {
  switch (kind) {
    case Kind::None:
      return "nothing";
    case Kind::Tensor:
      return "a tensor";
    case Kind::Integer:
      return "integer " + integer.to_string();
    case Kind::Real:
      return fmt::format("scalar {}", real);
    case Kind::Bool:
      return boolean ? "true" : "false";
    case Kind::String:
      return "string '" + string + "'";
    case Kind::Array:
      return fmt::format("an array of {}", items.size());
    case Kind::Tuple:
      return fmt::format("a tuple of {}", items.size());
  }
  return "?";
}

const std::vector<std::string>& kiln_unary_names() {
  static const std::vector<std::string> names = {"Abs",
                                                 "Neg",
                                                 "Exp",
                                                 "Log",
                                                 "Sqrt",
                                                 "Reciprocal",
                                                 "Sin",
                                                 "Cos",
                                                 "Tan",
                                                 "Asin",
                                                 "Acos",
                                                 "Atan",
                                                 "Sinh",
                                                 "Cosh",
                                                 "Asinh",
                                                 "Acosh",
                                                 "Atanh",
                                                 "Sigmoid",
                                                 "Tanh",
                                                 "Relu",
                                                 "Elu",
                                                 "Selu",
                                                 "LeakyRelu",
                                                 "HardSigmoid",
                                                 "HardSwish",
                                                 "Softplus",
                                                 "Softsign",
                                                 "Celu",
                                                 "ThresholdedRelu",
                                                 "Shrink",
                                                 "Gelu",
                                                 "GeluTanh",
                                                 "Erf",
                                                 "Sign",
                                                 "Round",
                                                 "Ceil",
                                                 "Floor",
                                                 "IsNaN",
                                                 "IsInf",
                                                 "Not",
                                                 "BitwiseNot"};
  return names;
}

const std::vector<std::string>& kiln_binary_names() {
  static const std::vector<std::string> names = {"Add",
                                                 "Sub",
                                                 "Mul",
                                                 "Div",
                                                 "Pow",
                                                 "Mod",
                                                 "FMod",
                                                 "ShiftLeft",
                                                 "ShiftRight",
                                                 "And",
                                                 "Or",
                                                 "Xor",
                                                 "BitwiseAnd",
                                                 "BitwiseOr",
                                                 "BitwiseXor",
                                                 "Equal",
                                                 "Greater",
                                                 "Less",
                                                 "GreaterOrEqual",
                                                 "LessOrEqual",
                                                 "PRelu"};
  return names;
}

int64_t value_to_int(const Value& v, const std::string& what) {
  if (v.kind == Value::Kind::Integer) {
    auto i = v.integer.as_int();
    KILN_ENSURE(i.has_value(), "{}: expected a known integer, got {}", what, v.integer.to_string());
    return *i;
  }
  if (v.kind == Value::Kind::Real && v.real == std::floor(v.real)) return int64_t(v.real);
  fail("{}: expected an integer, got {}", what, v.describe());
}

Dim value_to_dim(const Value& v, const std::string& what) {
  if (v.kind == Value::Kind::Integer) return v.integer;
  return value_to_int(v, what);
}

double value_to_real(const Value& v, const std::string& what) {
  if (v.kind == Value::Kind::Real) return v.real;
  if (v.kind == Value::Kind::Integer) return double(value_to_int(v, what));
  fail("{}: expected a number, got {}", what, v.describe());
}

std::string Builder::unique_name(const std::string& base) {
  // Helper nodes are named "x.1", "x.2": '.' never appears in NNEF identifiers, so these names
  // cannot take the name of a tensor assigned later.
  std::string name = base;
  for (int i = 1; used_names_.count(name) || graph_.find_node(name) >= 0; i++)
    name = fmt::format("{}.{}", base, i);
  used_names_.insert(name);
  return name;
}

Outlet Builder::add(OpPtr op, std::vector<Outlet> inputs) {
  return add_multi(std::move(op), std::move(inputs), 1)[0];
}

std::vector<Outlet> Builder::add_multi(OpPtr op, std::vector<Outlet> inputs, size_t n) {
  int id = graph_.add_node(unique_name(hint_), std::move(op), std::move(inputs), n, true);
  std::vector<Outlet> out;
  for (size_t i = 0; i < n; i++) out.push_back({id, static_cast<int>(i)});
  return out;
}

Outlet Builder::constant(Tensor value) {
  return graph_.add_const(unique_name(hint_), value);
}

Outlet Builder::source(Fact fact) {
  return graph_.add_source(unique_name(hint_), fact);
}

Outlet Builder::to_tensor(const Value& v, std::optional<DatumType> like) {
  switch (v.kind) {
    case Value::Kind::Tensor:
      return v.outlet;
    case Value::Kind::Bool:
      return constant(Tensor::scalar<bool>(v.boolean));
    case Value::Kind::Integer:
    case Value::Kind::Real: {
      double x = value_to_real(v, "literal");
      DatumType dt = like && is_numeric(*like)
                         ? *like
                         : (v.kind == Value::Kind::Real ? DatumType::F32 : DatumType::I64);
      return constant(Tensor::scalar<double>(x).cast_to(dt));
    }
    case Value::Kind::Array: {
      // A literal array as a rank-1 tensor (tract passes index lists this way).
      std::vector<double> xs;
      bool all_int = true;
      for (const auto& item : v.items) {
        KILN_ENSURE(item.is_literal(), "expected a tensor, got an array holding {}",
                    item.describe());
        xs.push_back(value_to_real(item, "array item"));
        all_int = all_int && item.kind == Value::Kind::Integer;
      }
      DatumType dt = like ? *like : all_int ? DatumType::I64 : DatumType::F32;
      return constant(Tensor::from_vector<double>({int64_t(xs.size())}, xs).cast_to(dt));
    }
    default:
      fail("expected a tensor, got {}", v.describe());
  }
}

const Value& Args::get(const std::string& name) const {
  auto it = values_.find(name);
  KILN_ENSURE(it != values_.end(), "{}: missing argument '{}'", op_, name);
  return it->second;
}

bool Args::has(const std::string& name) const {
  auto it = values_.find(name);
  return it != values_.end() && it->second.kind != Value::Kind::None;
}

Outlet Args::tensor(Builder& b, const std::string& name, std::optional<DatumType> like) const {
  try {
    return b.to_tensor(get(name), like);
  } catch (Error& e) {
    e.with_context(fmt::format("{}: argument '{}'", op_, name));
    throw;
  }
}

std::vector<Outlet> Args::tensors(Builder& b, const std::string& name) const {
  const Value& v = get(name);
  KILN_ENSURE(v.kind == Value::Kind::Array || v.kind == Value::Kind::Tuple,
              "{}: argument '{}' must be an array of tensors, got {}", op_, name, v.describe());
  std::vector<Outlet> out;
  for (const auto& item : v.items) out.push_back(b.to_tensor(item));
  return out;
}

int64_t Args::integer(const std::string& name) const {
  return value_to_int(get(name), op_ + ": argument '" + name + "'");
}

double Args::real(const std::string& name) const {
  return value_to_real(get(name), op_ + ": argument '" + name + "'");
}

bool Args::boolean(const std::string& name) const {
  const Value& v = get(name);
  KILN_ENSURE(v.kind == Value::Kind::Bool, "{}: argument '{}' must be true or false, got {}", op_,
              name, v.describe());
  return v.boolean;
}

std::string Args::string(const std::string& name) const {
  const Value& v = get(name);
  KILN_ENSURE(v.kind == Value::Kind::String, "{}: argument '{}' must be a string, got {}", op_,
              name, v.describe());
  return v.string;
}

std::vector<Dim> Args::tensor_dims(const Value& v, const std::string& name) const {
  KILN_ENSURE(graph_ != nullptr, "{}: argument '{}' must hold integers, got a tensor", op_, name);
  const Fact& f = graph_->fact(v.outlet);
  KILN_ENSURE(f.rank() <= 1 && is_integer(f.dt),
              "{}: argument '{}': a tensor of fact {} cannot stand for integers", op_, name,
              f.to_string());
  if (f.dims_value) return *f.dims_value;
  auto known = f.known_i64_values();
  KILN_ENSURE(known.has_value(),
              "{}: argument '{}': the tensor's values are not known at load time", op_, name);
  return std::vector<Dim>(known->begin(), known->end());
}

std::vector<Dim> Args::dims(const std::string& name) const {
  const Value& v = get(name);
  if (v.kind == Value::Kind::Tensor) return tensor_dims(v, name);
  KILN_ENSURE(v.kind == Value::Kind::Array, "{}: argument '{}' must be an array, got {}", op_, name,
              v.describe());
  std::vector<Dim> out;
  for (const auto& item : v.items) {
    if (item.kind == Value::Kind::Tensor) {
      auto d = tensor_dims(item, name);
      KILN_ENSURE(d.size() == 1, "{}: argument '{}': a tensor item must hold one integer", op_,
                  name);
      out.push_back(d[0]);
    } else {
      out.push_back(value_to_dim(item, op_ + ": '" + name + "'"));
    }
  }
  return out;
}

std::vector<int64_t> Args::ints(const std::string& name) const {
  std::vector<int64_t> out;
  for (const auto& d : dims(name)) {
    auto i = d.as_int();
    KILN_ENSURE(i.has_value(), "{}: argument '{}' must hold known integers, got {}", op_, name,
                d.to_string());
    out.push_back(*i);
  }
  return out;
}

std::vector<double> Args::reals(const std::string& name) const {
  const Value& v = get(name);
  if (v.kind != Value::Kind::Array) return {real(name)};
  std::vector<double> out;
  for (const auto& item : v.items) out.push_back(value_to_real(item, op_ + ": '" + name + "'"));
  return out;
}

std::vector<std::pair<int64_t, int64_t>> Args::int_pairs(const std::string& name) const {
  const Value& v = get(name);
  KILN_ENSURE(v.kind == Value::Kind::Array, "{}: argument '{}' must be an array, got {}", op_, name,
              v.describe());
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const auto& item : v.items) {
    KILN_ENSURE(item.kind == Value::Kind::Tuple && item.items.size() == 2,
                "{}: argument '{}' must hold (begin, end) pairs, got {}", op_, name,
                item.describe());
    out.emplace_back(value_to_int(item.items[0], op_), value_to_int(item.items[1], op_));
  }
  return out;
}

}  // namespace kiln::nnef
