#include "ops/elementwise/binary.h"

#include <cmath>

#include "base/saturate.h"
#include "ops/elementwise/util.h"
#include "ops/elementwise/vectorized.h"

namespace kiln::ops {

namespace {

enum class Category { Arithmetic, Pow, Shift, Logical, Bitwise, Comparison, PRelu };

Category category_of(BinaryKind k) {
  switch (k) {
    case BinaryKind::Pow:
      return Category::Pow;
    case BinaryKind::ShiftLeft:
    case BinaryKind::ShiftRight:
      return Category::Shift;
    case BinaryKind::And:
    case BinaryKind::Or:
    case BinaryKind::Xor:
      return Category::Logical;
    case BinaryKind::BitwiseAnd:
    case BinaryKind::BitwiseOr:
    case BinaryKind::BitwiseXor:
      return Category::Bitwise;
    case BinaryKind::Equal:
    case BinaryKind::Greater:
    case BinaryKind::Less:
    case BinaryKind::GreaterOrEqual:
    case BinaryKind::LessOrEqual:
      return Category::Comparison;
    case BinaryKind::PRelu:
      return Category::PRelu;
    default:
      return Category::Arithmetic;
  }
}

// Converts a double to T, saturating integers (out-of-range conversion is undefined in C++).
template <typename T>
T saturate_from_double(double v) {
  if constexpr (std::is_integral_v<T>) {
    return saturate_int<T>(v);
  } else {
    return from_compute<T>(v);
  }
}

template <typename T>
T int_div(T a, T b) {
  KILN_ENSURE(b != 0, "Div: integer division by zero");
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return wrap_sub(T(0), a);  // avoids the INT_MIN / -1 trap
  }
  return static_cast<T>(a / b);
}

template <typename T>
T int_mod(T a, T b, bool c_semantics) {
  KILN_ENSURE(b != 0, "Mod: integer modulo by zero");
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return T(0);
    T r = static_cast<T>(a % b);
    if (!c_semantics && r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
    return r;
  } else {
    return static_cast<T>(a % b);
  }
}

template <typename C>
C float_mod(C a, C b, bool c_semantics) {
  C r = std::fmod(a, b);
  if (!c_semantics && r != C(0) && ((r < C(0)) != (b < C(0)))) r += b;
  return r;
}

template <typename A, typename B>
A int_pow(A base, B exponent) {
  if constexpr (std::is_signed_v<B>) {
    if (exponent < 0) {
      if (base == 1) return A(1);
      if constexpr (std::is_signed_v<A>) {
        if (base == -1) return (exponent % 2 == 0) ? A(1) : A(-1);
      }
      KILN_ENSURE(base != 0, "Pow: zero to a negative integer power");
      return A(0);  // |base| >= 2: 1/base^n truncates to 0
    }
  }
  A result = 1;
  A b = base;
  auto e = static_cast<uint64_t>(exponent);
  while (e) {
    if (e & 1u) result = wrap_mul(result, b);
    e >>= 1;
    if (e) b = wrap_mul(b, b);
  }
  return result;
}

template <typename T>
auto load(const T& v) {
  if constexpr (is_half_v<T>) {
    return static_cast<float>(v);
  } else {
    return v;
  }
}

template <typename T>
void eval_arithmetic(BinaryKind kind, const Tensor& a, const Tensor& b, Tensor& out) {
  using C = compute_t<T>;
  auto run = [&](auto f) { broadcast_binary<T, T, T>(a, b, out, f); };
  if constexpr (std::is_integral_v<T>) {
    switch (kind) {
      case BinaryKind::Add:
        return run([](T x, T y) { return wrap_add(x, y); });
      case BinaryKind::Sub:
        return run([](T x, T y) { return wrap_sub(x, y); });
      case BinaryKind::Mul:
        return run([](T x, T y) { return wrap_mul(x, y); });
      case BinaryKind::Div:
        return run([](T x, T y) { return int_div(x, y); });
      case BinaryKind::Mod:
        return run([](T x, T y) { return int_mod(x, y, false); });
      case BinaryKind::FMod:
        return run([](T x, T y) { return int_mod(x, y, true); });
      default:
        break;
    }
  } else {
    auto c = [](T v) { return static_cast<C>(v); };
    switch (kind) {
      case BinaryKind::Add:
        return run([&](T x, T y) { return from_compute<T>(c(x) + c(y)); });
      case BinaryKind::Sub:
        return run([&](T x, T y) { return from_compute<T>(c(x) - c(y)); });
      case BinaryKind::Mul:
        return run([&](T x, T y) { return from_compute<T>(c(x) * c(y)); });
      case BinaryKind::Div:
        return run([&](T x, T y) { return from_compute<T>(c(x) / c(y)); });
      case BinaryKind::Mod:
        return run([&](T x, T y) { return from_compute<T>(float_mod(c(x), c(y), false)); });
      case BinaryKind::FMod:
        return run([&](T x, T y) { return from_compute<T>(float_mod(c(x), c(y), true)); });
      default:
        break;
    }
  }
  fail("unexpected arithmetic op");
}

// Symbolic values of Add/Sub/Mul/Div on shape-carrying integer tensors.
std::optional<std::vector<Dim>> dims_arithmetic(BinaryKind kind, const Fact& a, const Fact& b,
                                                const std::vector<Dim>& out_shape) {
  if (!a.dims_value || !b.dims_value || a.rank() > 1 || b.rank() > 1) return std::nullopt;
  const auto& va = *a.dims_value;
  const auto& vb = *b.dims_value;
  if (va.empty() && vb.empty()) return std::vector<Dim>{};
  if (!(va.size() == vb.size() || va.size() == 1 || vb.size() == 1)) return std::nullopt;
  size_t n = std::max(va.size(), vb.size());
  if (va.empty() || vb.empty()) n = 0;
  if (!out_shape.empty() && out_shape[0].as_int() != static_cast<int64_t>(n)) return std::nullopt;
  std::vector<Dim> out;
  for (size_t i = 0; i < n; i++) {
    const Dim& x = va[va.size() == 1 ? 0 : i];
    const Dim& y = vb[vb.size() == 1 ? 0 : i];
    switch (kind) {
      case BinaryKind::Add:
        out.push_back(x + y);
        break;
      case BinaryKind::Sub:
        out.push_back(x - y);
        break;
      case BinaryKind::Mul:
        out.push_back(x * y);
        break;
      case BinaryKind::Div: {
        auto yi = y.as_int();
        auto xi = x.as_int();
        if (xi && yi && *yi != 0) {
          out.push_back(Dim(int_div<int64_t>(*xi, *yi)));
        } else if (yi && *yi > 0) {
          out.push_back(x.div(*yi));
        } else {
          return std::nullopt;
        }
        break;
      }
      default:
        return std::nullopt;
    }
  }
  return out;
}

}  // namespace

template <typename D>
std::vector<D> Binary::align_b(size_t rank_a, const std::vector<D>& b_shape) const {
  if (!legacy_axis_) return b_shape;
  size_t axis = normalize_axis(*legacy_axis_, rank_a, name());
  KILN_ENSURE(axis + b_shape.size() <= rank_a, "{}: cannot broadcast rank {} at axis {} of rank {}",
              name(), b_shape.size(), axis, rank_a);
  std::vector<D> out = b_shape;
  out.resize(rank_a - axis, D(1));
  return out;
}

std::string Binary::name() const {
  switch (kind_) {
    case BinaryKind::Add:
      return "Add";
    case BinaryKind::Sub:
      return "Sub";
    case BinaryKind::Mul:
      return "Mul";
    case BinaryKind::Div:
      return "Div";
    case BinaryKind::Pow:
      return "Pow";
    case BinaryKind::Mod:
    case BinaryKind::FMod:
      return "Mod";
    case BinaryKind::ShiftLeft:
    case BinaryKind::ShiftRight:
      return "BitShift";
    case BinaryKind::And:
      return "And";
    case BinaryKind::Or:
      return "Or";
    case BinaryKind::Xor:
      return "Xor";
    case BinaryKind::BitwiseAnd:
      return "BitwiseAnd";
    case BinaryKind::BitwiseOr:
      return "BitwiseOr";
    case BinaryKind::BitwiseXor:
      return "BitwiseXor";
    case BinaryKind::Equal:
      return "Equal";
    case BinaryKind::Greater:
      return "Greater";
    case BinaryKind::Less:
      return "Less";
    case BinaryKind::GreaterOrEqual:
      return "GreaterOrEqual";
    case BinaryKind::LessOrEqual:
      return "LessOrEqual";
    case BinaryKind::PRelu:
      return "PRelu";
  }
  return "Binary";
}

Attributes Binary::attributes() const {
  if (kind_ == BinaryKind::FMod) return {{"fmod", "1"}};
  if (kind_ == BinaryKind::ShiftLeft) return {{"direction", "LEFT"}};
  if (kind_ == BinaryKind::ShiftRight) return {{"direction", "RIGHT"}};
  if (legacy_axis_) return {{"axis", std::to_string(*legacy_axis_)}};
  return {};
}

std::vector<Fact> Binary::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 2);
  const Fact& a = required(inputs, 0, name());
  const Fact& b_input = required(inputs, 1, name());
  Fact b_aligned;
  if (legacy_axis_) b_aligned = Fact(b_input.dt, align_b(a.rank(), b_input.shape));
  const Fact& b = legacy_axis_ ? b_aligned : b_input;
  Category cat = category_of(kind_);
  if (cat != Category::Pow) {
    KILN_ENSURE(a.dt == b.dt, "{}: inputs have different types {} and {}", name(), name_of(a.dt),
                name_of(b.dt));
  }
  DatumType dt = a.dt;
  switch (cat) {
    case Category::Arithmetic:
    case Category::Pow:
    case Category::PRelu:
      KILN_ENSURE(is_numeric(a.dt) && is_numeric(b.dt), "{}: expects numeric inputs, got {} and {}",
                  name(), name_of(a.dt), name_of(b.dt));
      break;
    case Category::Shift:
      KILN_ENSURE(is_unsigned_int(dt), "{}: expects unsigned integer inputs, got {}", name(),
                  name_of(dt));
      break;
    case Category::Logical:
      KILN_ENSURE(dt == DatumType::Bool, "{}: expects bool inputs, got {}", name(), name_of(dt));
      break;
    case Category::Bitwise:
      KILN_ENSURE(is_integer(dt), "{}: expects integer inputs, got {}", name(), name_of(dt));
      break;
    case Category::Comparison:
      KILN_ENSURE(kind_ == BinaryKind::Equal || dt != DatumType::String,
                  "{}: cannot compare strings", name());
      dt = DatumType::Bool;
      break;
  }
  std::vector<Dim> shape = broadcast_facts({&a, &b});
  if (cat == Category::PRelu) {
    KILN_ENSURE(shape == a.shape, "PRelu: slope of shape [{}] does not broadcast to input [{}]",
                dims_to_string(b.shape), dims_to_string(a.shape));
  }
  Fact out(dt, shape);
  if (cat == Category::Arithmetic && is_integer(dt))
    out.dims_value = dims_arithmetic(kind_, a, b, shape);
  return {out};
}

void Binary::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& a = required(inputs, 0, name());
  const Tensor& b_input = required(inputs, 1, name());
  Tensor b_aligned;
  if (legacy_axis_) b_aligned = b_input.reshaped(align_b(a.rank(), b_input.shape()));
  const Tensor& b = legacy_axis_ ? b_aligned : b_input;
  Category cat = category_of(kind_);
  if (cat != Category::Pow) {
    KILN_ENSURE(a.dtype() == b.dtype(), "{}: inputs have different types {} and {}", name(),
                name_of(a.dtype()), name_of(b.dtype()));
  }
  Shape& shape = ctx.temp_shape(0);
  broadcast_shapes_into(a.shape(), b.shape(), shape);
  switch (cat) {
    case Category::Arithmetic: {
      Tensor& out = ctx.output(0, a.dtype(), shape);
      dispatch_numeric(a.dtype(), [&](auto tag) {
        eval_arithmetic<typename decltype(tag)::type>(kind_, a, b, out);
      });
      return;
    }
    case Category::Pow: {
      Tensor& out = ctx.output(0, a.dtype(), shape);
      dispatch_numeric(a.dtype(), [&](auto ta) {
        using A = typename decltype(ta)::type;
        dispatch_numeric(b.dtype(), [&](auto tb) {
          using B = typename decltype(tb)::type;
          if constexpr (std::is_integral_v<A> && std::is_integral_v<B>) {
            broadcast_binary<A, B, A>(a, b, out, [](A x, B y) { return int_pow<A, B>(x, y); });
          } else {
            broadcast_binary<A, B, A>(a, b, out, [](A x, B y) {
              return saturate_from_double<A>(
                  std::pow(static_cast<double>(load(x)), static_cast<double>(load(y))));
            });
          }
        });
      });
      return;
    }
    case Category::Shift: {
      Tensor& out = ctx.output(0, a.dtype(), shape);
      dispatch_numeric(a.dtype(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_unsigned_v<T>) {
          constexpr T bits = static_cast<T>(sizeof(T) * 8);
          bool left = kind_ == BinaryKind::ShiftLeft;
          broadcast_binary<T, T, T>(a, b, out, [&](T x, T y) {
            if (y >= bits) return T(0);  // shifting out every bit (undefined in C++)
            return static_cast<T>(left ? x << y : x >> y);
          });
        } else {
          fail("BitShift: expects unsigned integer inputs, got {}", name_of(a.dtype()));
        }
      });
      return;
    }
    case Category::Logical: {
      KILN_ENSURE(a.dtype() == DatumType::Bool, "{}: expects bool inputs", name());
      Tensor& out = ctx.output(0, DatumType::Bool, shape);
      auto run = [&](auto f) { broadcast_binary<bool, bool, bool>(a, b, out, f); };
      if (kind_ == BinaryKind::And) run([](bool x, bool y) { return x && y; });
      if (kind_ == BinaryKind::Or) run([](bool x, bool y) { return x || y; });
      if (kind_ == BinaryKind::Xor) run([](bool x, bool y) { return x != y; });
      return;
    }
    case Category::Bitwise: {
      Tensor& out = ctx.output(0, a.dtype(), shape);
      dispatch_numeric(a.dtype(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_integral_v<T>) {
          auto run = [&](auto f) { broadcast_binary<T, T, T>(a, b, out, f); };
          if (kind_ == BinaryKind::BitwiseAnd) run([](T x, T y) { return T(x & y); });
          if (kind_ == BinaryKind::BitwiseOr) run([](T x, T y) { return T(x | y); });
          if (kind_ == BinaryKind::BitwiseXor) run([](T x, T y) { return T(x ^ y); });
        } else {
          fail("{}: expects integer inputs, got {}", name(), name_of(a.dtype()));
        }
      });
      return;
    }
    case Category::Comparison: {
      Tensor& out = ctx.output(0, DatumType::Bool, shape);
      dispatch_any(a.dtype(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        auto run = [&](auto f) { broadcast_binary<T, T, bool>(a, b, out, f); };
        if (kind_ == BinaryKind::Equal) {
          run([](const T& x, const T& y) { return load(x) == load(y); });
          return;
        }
        if constexpr (std::is_same_v<T, std::string>) {
          fail("{}: cannot compare strings", name());
        } else {
          switch (kind_) {
            case BinaryKind::Greater:
              return run([](T x, T y) { return load(x) > load(y); });
            case BinaryKind::Less:
              return run([](T x, T y) { return load(x) < load(y); });
            case BinaryKind::GreaterOrEqual:
              return run([](T x, T y) { return load(x) >= load(y); });
            case BinaryKind::LessOrEqual:
              return run([](T x, T y) { return load(x) <= load(y); });
            default:
              break;
          }
        }
      });
      return;
    }
    case Category::PRelu: {
      KILN_ENSURE(shape == a.shape(), "PRelu: slope of shape [{}] does not broadcast to input [{}]",
                  shape_to_string(b.shape()), shape_to_string(a.shape()));
      Tensor& out = ctx.output(0, a.dtype(), shape);
      dispatch_numeric(a.dtype(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        broadcast_binary<T, T, T>(a, b, out, [](T x, T s) {
          if constexpr (std::is_integral_v<T>) {
            return x < 0 ? wrap_mul(x, s) : x;
          } else {
            using C = compute_t<T>;
            C xc = static_cast<C>(x);
            return xc < C(0) ? from_compute<T>(xc * static_cast<C>(s)) : x;
          }
        });
      });
      return;
    }
  }
}

Cost Binary::cost(const FactRefs& inputs) const {
  Cost c;
  if (kind_ == BinaryKind::Div || kind_ == BinaryKind::Pow || kind_ == BinaryKind::Mod ||
      kind_ == BinaryKind::FMod)
    c.other = output_facts(inputs).at(0).volume();
  return c;
}

OpPtr Binary::codegen(const FactRefs& inputs) const {
  if (legacy_axis_ || inputs.size() != 2 || !inputs[0] || !inputs[1]) return nullptr;
  if (inputs[0]->dt != DatumType::F32 || inputs[1]->dt != DatumType::F32) return nullptr;
  auto self = std::make_shared<Binary>(*this);
  switch (kind_) {
    case BinaryKind::Add:
      return std::make_shared<BinaryF32>(self, 0, false);
    case BinaryKind::Sub:
      return std::make_shared<BinaryF32>(self, 1, false);
    case BinaryKind::Mul:
      return std::make_shared<BinaryF32>(self, 2, false);
    case BinaryKind::Div:
      return std::make_shared<BinaryF32>(self, 3, false);
    case BinaryKind::PRelu:
      return std::make_shared<BinaryF32>(self, static_cast<int>(kernels::BinaryFn::PRelu), false);
    case BinaryKind::Pow: {
      const auto& e = inputs[1]->value;
      bool square = e && e->numel() == 1 && e->value_as_double(0) == 2.0 &&
                    inputs[1]->rank() <= inputs[0]->rank();
      return square ? std::make_shared<BinaryF32>(self, 2, true) : nullptr;
    }
    default:
      return nullptr;
  }
}

std::optional<OutputStep> Binary::output_step(const FactRefs& inputs, size_t value) const {
  if (legacy_axis_ || inputs.size() != 2 || value > 1 || !inputs[0] || !inputs[1] ||
      inputs[0]->dt != DatumType::F32 || inputs[1]->dt != DatumType::F32)
    return std::nullopt;
  OutputStep s;
  s.kind = OutputStep::Kind::Binary;
  switch (kind_) {
    case BinaryKind::Add:
      s.binary = kernels::BinaryFn::Add;
      break;
    case BinaryKind::Sub:
      s.binary = kernels::BinaryFn::Sub;
      break;
    case BinaryKind::Mul:
      s.binary = kernels::BinaryFn::Mul;
      break;
    case BinaryKind::Div:
      s.binary = kernels::BinaryFn::Div;
      break;
    case BinaryKind::PRelu:
      // Only on the input x (the slope is the operand): x < 0 ? x * slope : x.
      if (value != 0) return std::nullopt;
      s.binary = kernels::BinaryFn::PRelu;
      break;
    default:
      return std::nullopt;
  }
  s.operand_first = value == 1;
  return s;
}

}  // namespace kiln::ops
