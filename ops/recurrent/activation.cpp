#include "ops/recurrent/activation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "base/error.h"

namespace kiln::ops {

namespace {

struct KindInfo {
  Activation::Kind kind;
  const char* name;
  bool alpha;
  bool beta;
  float default_alpha;
  float default_beta;
};

constexpr KindInfo kKinds[] = {
    {Activation::Kind::Sigmoid, "Sigmoid", false, false, 0, 0},
    {Activation::Kind::Tanh, "Tanh", false, false, 0, 0},
    {Activation::Kind::Relu, "Relu", false, false, 0, 0},
    {Activation::Kind::HardSigmoid, "HardSigmoid", true, true, 0.2f, 0.5f},
    {Activation::Kind::LeakyRelu, "LeakyRelu", true, false, 0.01f, 0},
    {Activation::Kind::ThresholdedRelu, "ThresholdedRelu", true, false, 1.0f, 0},
    {Activation::Kind::ScaledTanh, "ScaledTanh", true, true, 1.0f, 1.0f},
    {Activation::Kind::Affine, "Affine", true, true, 1.0f, 0},
    {Activation::Kind::Elu, "Elu", true, false, 1.0f, 0},
    {Activation::Kind::Softsign, "Softsign", false, false, 0, 0},
    {Activation::Kind::Softplus, "Softplus", false, false, 0, 0},
};

const KindInfo& info(Activation::Kind kind) {
  for (const auto& k : kKinds)
    if (k.kind == kind) return k;
  return kKinds[0];
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

double Activation::apply(double x) const {
  switch (kind) {
    case Kind::Sigmoid:
      return 1.0 / (1.0 + std::exp(-x));
    case Kind::Tanh:
      return std::tanh(x);
    case Kind::Relu:
      return x > 0 ? x : 0.0;
    case Kind::HardSigmoid:
      return std::max(std::min(alpha * x + beta, 1.0), 0.0);  // NaN kept (std::clamp: UB)
    case Kind::LeakyRelu:
      return x >= 0 ? x : alpha * x;
    case Kind::ThresholdedRelu:
      return x > alpha ? x : 0.0;
    case Kind::ScaledTanh:
      return alpha * std::tanh(beta * x);
    case Kind::Affine:
      return alpha * x + beta;
    case Kind::Elu:
      return x >= 0 ? x : alpha * (std::exp(x) - 1.0);
    case Kind::Softsign:
      return x / (1.0 + std::fabs(x));
    case Kind::Softplus:
      return x > 30 ? x : std::log1p(std::exp(x));
  }
  return x;
}

std::string Activation::to_string() const {
  const auto& k = info(kind);
  if (k.alpha && k.beta) return fmt::format("{}({},{})", k.name, alpha, beta);
  if (k.alpha) return fmt::format("{}({})", k.name, alpha);
  return k.name;
}

bool Activation::uses_alpha(Kind kind) {
  return info(kind).alpha;
}
bool Activation::uses_beta(Kind kind) {
  return info(kind).beta;
}

Activation::Kind Activation::parse(const std::string& name) {
  for (const auto& k : kKinds)
    if (lower(k.name) == lower(name)) return k.kind;
  fail("unsupported recurrent activation '{}'", name);
}

std::vector<Activation> Activation::from_onnx(const std::vector<std::string>& names,
                                              const std::vector<float>& alphas,
                                              const std::vector<float>& betas) {
  std::vector<Activation> out;
  size_t next_alpha = 0, next_beta = 0;
  for (const auto& n : names) {
    Activation a;
    a.kind = parse(n);
    const auto& k = info(a.kind);
    a.alpha = k.default_alpha;
    a.beta = k.default_beta;
    if (k.alpha && next_alpha < alphas.size()) a.alpha = alphas[next_alpha++];
    if (k.beta && next_beta < betas.size()) a.beta = betas[next_beta++];
    out.push_back(a);
  }
  return out;
}

}  // namespace kiln::ops
