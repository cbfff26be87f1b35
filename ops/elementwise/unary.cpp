#include "ops/elementwise/unary.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "ops/elementwise/util.h"
#include "ops/elementwise/vectorized.h"

namespace kiln::ops {

namespace {

bool accepts_integers(UnaryKind k) {
  switch (k) {
    case UnaryKind::Abs:
    case UnaryKind::Neg:
    case UnaryKind::Sign:
    case UnaryKind::Relu:
    case UnaryKind::Shrink:
    case UnaryKind::Erf:
      return true;
    default:
      return false;
  }
}

bool is_transcendental(UnaryKind k) {
  switch (k) {
    case UnaryKind::Exp:
    case UnaryKind::Log:
    case UnaryKind::Sqrt:
    case UnaryKind::Reciprocal:
    case UnaryKind::Sin:
    case UnaryKind::Cos:
    case UnaryKind::Tan:
    case UnaryKind::Asin:
    case UnaryKind::Acos:
    case UnaryKind::Atan:
    case UnaryKind::Sinh:
    case UnaryKind::Cosh:
    case UnaryKind::Asinh:
    case UnaryKind::Acosh:
    case UnaryKind::Atanh:
    case UnaryKind::Sigmoid:
    case UnaryKind::Tanh:
    case UnaryKind::Elu:
    case UnaryKind::Selu:
    case UnaryKind::Softplus:
    case UnaryKind::Celu:
    case UnaryKind::Gelu:
    case UnaryKind::GeluTanh:
    case UnaryKind::Erf:
    case UnaryKind::Mish:
    case UnaryKind::Swish:
      return true;
    default:
      return false;
  }
}

template <typename C>
C softplus(C x) {
  return x > C(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}

template <typename C>
C apply_float(UnaryKind kind, const UnaryParams& p, C x) {
  const C alpha = static_cast<C>(p.alpha);
  const C beta = static_cast<C>(p.beta);
  switch (kind) {
    case UnaryKind::Abs:
      return std::abs(x);
    case UnaryKind::Neg:
      return -x;
    case UnaryKind::Exp:
      return std::exp(x);
    case UnaryKind::Log:
      return std::log(x);
    case UnaryKind::Sqrt:
      return std::sqrt(x);
    case UnaryKind::Reciprocal:
      return C(1) / x;
    case UnaryKind::Sin:
      return std::sin(x);
    case UnaryKind::Cos:
      return std::cos(x);
    case UnaryKind::Tan:
      return std::tan(x);
    case UnaryKind::Asin:
      return std::asin(x);
    case UnaryKind::Acos:
      return std::acos(x);
    case UnaryKind::Atan:
      return std::atan(x);
    case UnaryKind::Sinh:
      return std::sinh(x);
    case UnaryKind::Cosh:
      return std::cosh(x);
    case UnaryKind::Asinh:
      return std::asinh(x);
    case UnaryKind::Acosh:
      return std::acosh(x);
    case UnaryKind::Atanh:
      return std::atanh(x);
    case UnaryKind::Sigmoid:
      // Two forms so that exp never overflows.
      if (x >= C(0)) return C(1) / (C(1) + std::exp(-x));
      return std::exp(x) / (C(1) + std::exp(x));
    case UnaryKind::Tanh:
      return std::tanh(x);
    case UnaryKind::Relu:
      // max(0, x) as ONNX's reference (np.maximum / clip) and the fused clamp compute it: NaN
      // stays NaN, -0 stays -0.
      return x < C(0) ? C(0) : x;
    case UnaryKind::Elu:
      return x >= C(0) ? x : alpha * std::expm1(x);
    case UnaryKind::Selu:
      return static_cast<C>(p.gamma) * (x > C(0) ? x : alpha * std::expm1(x));
    case UnaryKind::LeakyRelu:
      return x >= C(0) ? x : alpha * x;
    case UnaryKind::HardSigmoid:
      // max(0, min(1, .)) with NaN kept (np.clip in ONNX's reference, ONNX Runtime): the NaN
      // is std::min / std::max's first argument.
      return std::max(std::min(alpha * x + beta, C(1)), C(0));
    case UnaryKind::HardSwish:
      return x * std::max(std::min(x / C(6) + C(0.5), C(1)), C(0));
    case UnaryKind::Softplus:
      return softplus(x);
    case UnaryKind::Mish:
      return x * std::tanh(softplus(x));
    case UnaryKind::Swish: {
      C z = alpha * x;  // sigmoid in the form whose exp never overflows
      return z >= C(0) ? x / (C(1) + std::exp(-z)) : x * std::exp(z) / (C(1) + std::exp(z));
    }
    case UnaryKind::Softsign:
      return x / (C(1) + std::abs(x));
    case UnaryKind::Celu:
      // max(0, x) + min(0, alpha (exp(x / alpha) - 1)), NaN kept (std::max(0, NaN) is 0).
      return x > C(0) ? x : alpha * std::expm1(x / alpha);
    case UnaryKind::ThresholdedRelu:
      return x > alpha ? x : C(0);
    case UnaryKind::Shrink:
      if (x < -alpha) return x + beta;
      if (x > alpha) return x - beta;
      return C(0);
    case UnaryKind::Gelu:
      return C(0.5) * x * (C(1) + std::erf(x / std::sqrt(C(2))));
    case UnaryKind::GeluTanh: {
      const C k = std::sqrt(C(2) / C(3.14159265358979323846));
      return C(0.5) * x * (C(1) + std::tanh(k * (x + C(0.044715) * x * x * x)));
    }
    case UnaryKind::Erf:
      return std::erf(x);
    case UnaryKind::Sign:
      if (std::isnan(x)) return x;
      return x > C(0) ? C(1) : (x < C(0) ? C(-1) : C(0));
    case UnaryKind::Round:
      return std::nearbyint(x);  // default rounding: half to even
    case UnaryKind::Ceil:
      return std::ceil(x);
    case UnaryKind::Floor:
      return std::floor(x);
    default:
      break;
  }
  fail("{}: not a float function", unary_kind_name(kind));
}

template <typename T>
T apply_integer(UnaryKind kind, const UnaryParams& p, T x) {
  switch (kind) {
    case UnaryKind::Abs:
      if constexpr (std::is_signed_v<T>) return x < 0 ? wrap_sub(T(0), x) : x;
      return x;
    case UnaryKind::Neg:
      return wrap_sub(T(0), x);
    case UnaryKind::Sign:
      if constexpr (std::is_signed_v<T>) return x > 0 ? T(1) : (x < 0 ? T(-1) : T(0));
      return x > 0 ? T(1) : T(0);
    case UnaryKind::Relu:
      return x > 0 ? x : T(0);
    case UnaryKind::BitwiseNot:
      return static_cast<T>(~x);
    default:
      // Shrink, Erf on integers: through double, then back (truncating).
      return static_cast<T>(apply_float<double>(kind, p, static_cast<double>(x)));
  }
}

}  // namespace

const char* unary_kind_name(UnaryKind kind) {
  switch (kind) {
    case UnaryKind::Abs:
      return "Abs";
    case UnaryKind::Neg:
      return "Neg";
    case UnaryKind::Exp:
      return "Exp";
    case UnaryKind::Log:
      return "Log";
    case UnaryKind::Sqrt:
      return "Sqrt";
    case UnaryKind::Reciprocal:
      return "Reciprocal";
    case UnaryKind::Sin:
      return "Sin";
    case UnaryKind::Cos:
      return "Cos";
    case UnaryKind::Tan:
      return "Tan";
    case UnaryKind::Asin:
      return "Asin";
    case UnaryKind::Acos:
      return "Acos";
    case UnaryKind::Atan:
      return "Atan";
    case UnaryKind::Sinh:
      return "Sinh";
    case UnaryKind::Cosh:
      return "Cosh";
    case UnaryKind::Asinh:
      return "Asinh";
    case UnaryKind::Acosh:
      return "Acosh";
    case UnaryKind::Atanh:
      return "Atanh";
    case UnaryKind::Sigmoid:
      return "Sigmoid";
    case UnaryKind::Tanh:
      return "Tanh";
    case UnaryKind::Relu:
      return "Relu";
    case UnaryKind::Elu:
      return "Elu";
    case UnaryKind::Selu:
      return "Selu";
    case UnaryKind::LeakyRelu:
      return "LeakyRelu";
    case UnaryKind::HardSigmoid:
      return "HardSigmoid";
    case UnaryKind::HardSwish:
      return "HardSwish";
    case UnaryKind::Softplus:
      return "Softplus";
    case UnaryKind::Softsign:
      return "Softsign";
    case UnaryKind::Celu:
      return "Celu";
    case UnaryKind::ThresholdedRelu:
      return "ThresholdedRelu";
    case UnaryKind::Shrink:
      return "Shrink";
    case UnaryKind::Gelu:
      return "Gelu";
    case UnaryKind::GeluTanh:
      return "Gelu";
    case UnaryKind::Erf:
      return "Erf";
    case UnaryKind::Sign:
      return "Sign";
    case UnaryKind::Round:
      return "Round";
    case UnaryKind::Ceil:
      return "Ceil";
    case UnaryKind::Floor:
      return "Floor";
    case UnaryKind::IsNaN:
      return "IsNaN";
    case UnaryKind::IsInf:
      return "IsInf";
    case UnaryKind::Not:
      return "Not";
    case UnaryKind::BitwiseNot:
      return "BitwiseNot";
    case UnaryKind::Mish:
      return "Mish";
    case UnaryKind::Swish:
      return "Swish";
  }
  return "Unary";
}

std::string Unary::name() const {
  return unary_kind_name(kind_);
}

Attributes Unary::attributes() const {
  auto f = [](float v) { return fmt::format("{}", v); };
  switch (kind_) {
    case UnaryKind::Elu:
    case UnaryKind::Celu:
    case UnaryKind::LeakyRelu:
    case UnaryKind::ThresholdedRelu:
    case UnaryKind::Swish:
      return {{"alpha", f(params_.alpha)}};
    case UnaryKind::Selu:
      return {{"alpha", f(params_.alpha)}, {"gamma", f(params_.gamma)}};
    case UnaryKind::HardSigmoid:
      return {{"alpha", f(params_.alpha)}, {"beta", f(params_.beta)}};
    case UnaryKind::Shrink:
      return {{"lambd", f(params_.alpha)}, {"bias", f(params_.beta)}};
    case UnaryKind::GeluTanh:
      return {{"approximate", "tanh"}};
    case UnaryKind::IsInf:
      return {{"detect_positive", params_.detect_positive ? "1" : "0"},
              {"detect_negative", params_.detect_negative ? "1" : "0"}};
    default:
      return {};
  }
}

std::vector<Fact> Unary::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  DatumType dt = x.dt;
  switch (kind_) {
    case UnaryKind::Not:
      KILN_ENSURE(dt == DatumType::Bool, "{}: expects a bool input, got {}", name(), name_of(dt));
      break;
    case UnaryKind::BitwiseNot:
      KILN_ENSURE(is_integer(dt), "{}: expects an integer input, got {}", name(), name_of(dt));
      break;
    case UnaryKind::IsNaN:
    case UnaryKind::IsInf:
      KILN_ENSURE(is_float(dt) || is_narrow_float(dt), "{}: expects a float input, got {}", name(),
                  name_of(dt));
      dt = DatumType::Bool;
      break;
    default:
      if (accepts_integers(kind_)) {
        KILN_ENSURE(is_numeric(dt), "{}: expects a numeric input, got {}", name(), name_of(dt));
      } else {
        KILN_ENSURE(is_float(dt), "{}: expects a float input, got {}", name(), name_of(dt));
      }
  }
  Fact out(dt, x.shape);
  // Negating a shape-carrying tensor keeps it symbolic (e.g. -S as a slice start).
  if (kind_ == UnaryKind::Neg && x.dims_value && is_integer(dt)) {
    std::vector<Dim> dims;
    for (const Dim& d : *x.dims_value) dims.push_back(-d);
    out.dims_value = std::move(dims);
  }
  return {out};
}

void Unary::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  const int64_t n = x.numel();
  if (kind_ == UnaryKind::Not) {
    KILN_ENSURE(x.dtype() == DatumType::Bool, "{}: expects a bool input", name());
    Tensor& out = ctx.output(0, DatumType::Bool, x.shape());
    const bool* src = x.data<bool>();
    bool* dst = out.data<bool>();
    for (int64_t i = 0; i < n; i++) dst[i] = !src[i];
    return;
  }
  if (kind_ == UnaryKind::IsNaN || kind_ == UnaryKind::IsInf) {
    Tensor& out = ctx.output(0, DatumType::Bool, x.shape());
    bool* dst = out.data<bool>();
    if (is_narrow_float(x.dtype())) {  // float8 (IsNaN-20, IsInf-20): through their values
      for (int64_t i = 0; i < n; i++) {
        double v = x.value_as_double(i);
        dst[i] = kind_ == UnaryKind::IsNaN ? std::isnan(v)
                                           : std::isinf(v) && ((v > 0 && params_.detect_positive) ||
                                                               (v < 0 && params_.detect_negative));
      }
      return;
    }
    dispatch_numeric(x.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* src = x.data<T>();
      for (int64_t i = 0; i < n; i++) {
        if constexpr (std::is_integral_v<T>) {
          dst[i] = false;
        } else {
          auto v = static_cast<compute_t<T>>(src[i]);
          if (kind_ == UnaryKind::IsNaN) {
            dst[i] = std::isnan(v);
          } else {
            dst[i] = std::isinf(v) &&
                     ((v > 0 && params_.detect_positive) || (v < 0 && params_.detect_negative));
          }
        }
      }
    });
    return;
  }
  Tensor& out = ctx.output(0, x.dtype(), x.shape());
  dispatch_numeric(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = x.data<T>();
    T* dst = out.data<T>();
    if constexpr (std::is_integral_v<T>) {
      KILN_ENSURE(accepts_integers(kind_) || kind_ == UnaryKind::BitwiseNot,
                  "{}: expects a float input, got {}", name(), name_of(x.dtype()));
      for (int64_t i = 0; i < n; i++) dst[i] = apply_integer<T>(kind_, params_, src[i]);
    } else {
      KILN_ENSURE(kind_ != UnaryKind::BitwiseNot, "{}: expects an integer input", name());
      using C = compute_t<T>;
      for (int64_t i = 0; i < n; i++)
        dst[i] = from_compute<T>(apply_float<C>(kind_, params_, static_cast<C>(src[i])));
    }
  });
}

Cost Unary::cost(const FactRefs& inputs) const {
  Cost c;
  if (is_transcendental(kind_) && !inputs.empty() && inputs[0]) c.other = inputs[0]->volume();
  return c;
}

OpPtr Unary::codegen(const FactRefs& inputs) const {
  if (inputs.size() != 1 || !inputs[0] || inputs[0]->dt != DatumType::F32) return nullptr;
  if (!unary_kernel(kind_, params_)) return nullptr;
  return std::make_shared<UnaryF32>(std::make_shared<Unary>(*this));
}

std::optional<UnaryKernel> unary_kernel(UnaryKind kind, const UnaryParams& params) {
  using F = kernels::UnaryFn;
  switch (kind) {
    case UnaryKind::Exp:
      return UnaryKernel{F::Exp};
    case UnaryKind::Sigmoid:
      return UnaryKernel{F::Sigmoid};
    case UnaryKind::Tanh:
      return UnaryKernel{F::Tanh};
    case UnaryKind::Erf:
      return UnaryKernel{F::Erf};
    case UnaryKind::Gelu:
      return UnaryKernel{F::Gelu};
    case UnaryKind::GeluTanh:
      return UnaryKernel{F::GeluTanh};
    case UnaryKind::LeakyRelu:
      return UnaryKernel{F::LeakyRelu, params.alpha};
    case UnaryKind::Relu:
      return UnaryKernel{F::Clamp, 0.0f, std::numeric_limits<float>::infinity()};
    case UnaryKind::HardSigmoid:
      return UnaryKernel{F::HardSigmoid, params.alpha, params.beta};
    case UnaryKind::HardSwish:
      return UnaryKernel{F::HardSwish};
    case UnaryKind::Elu:
      return UnaryKernel{F::Elu, params.alpha};
    case UnaryKind::Selu:
      return UnaryKernel{F::Selu, params.alpha, params.gamma};
    case UnaryKind::Celu:
      return UnaryKernel{F::Celu, params.alpha};
    case UnaryKind::Softplus:
      return UnaryKernel{F::Softplus};
    case UnaryKind::Mish:
      return UnaryKernel{F::Mish};
    case UnaryKind::Softsign:
      return UnaryKernel{F::Softsign};
    case UnaryKind::ThresholdedRelu:
      return UnaryKernel{F::ThresholdedRelu, params.alpha};
    case UnaryKind::Abs:
      return UnaryKernel{F::Abs};
    case UnaryKind::Neg:
      return UnaryKernel{F::Neg};
    case UnaryKind::Sqrt:
      return UnaryKernel{F::Sqrt};
    case UnaryKind::Reciprocal:
      return UnaryKernel{F::Reciprocal};
    case UnaryKind::Log:
      return UnaryKernel{F::Log};
    default:
      return std::nullopt;
  }
}

std::optional<OutputStep> Unary::output_step(const FactRefs& inputs, size_t) const {
  if (inputs.size() != 1 || !inputs[0] || inputs[0]->dt != DatumType::F32) return std::nullopt;
  OutputStep s;
  if (kind_ == UnaryKind::Relu) {
    s.kind = OutputStep::Kind::Clamp;
    s.min = 0.0f;
    return s;
  }
  if (kind_ == UnaryKind::LeakyRelu) {
    s.kind = OutputStep::Kind::Leaky;
    s.alpha = params_.alpha;
    return s;
  }
  auto k = unary_kernel(kind_, params_);
  if (!k) return std::nullopt;
  s.kind = OutputStep::Kind::Unary;
  s.unary = k->fn;
  s.alpha = k->alpha;
  s.beta = k->beta;
  return s;
}

}  // namespace kiln::ops
