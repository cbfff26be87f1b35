// Activation functions of the ONNX recurrent ops (LSTM, GRU, RNN), with their alpha/beta.
#pragma once

#include <string>
#include <vector>

namespace kiln::ops {

struct Activation {
  enum class Kind {
    Sigmoid,
    Tanh,
    Relu,
    HardSigmoid,
    LeakyRelu,
    ThresholdedRelu,
    ScaledTanh,
    Affine,
    Elu,
    Softsign,
    Softplus,
  };
  Kind kind = Kind::Tanh;
  float alpha = 0;
  float beta = 0;

  double apply(double x) const;
  std::string to_string() const;
  // Number of alpha / beta parameters this kind takes (0 or 1 each).
  static bool uses_alpha(Kind kind);
  static bool uses_beta(Kind kind);
  // A kind from its ONNX name (case-insensitive); throws on unknown names.
  static Kind parse(const std::string& name);
  // Activations from ONNX names; alphas/betas are consumed in order by the kinds that take
  // them, missing ones take the ONNX defaults.
  static std::vector<Activation> from_onnx(const std::vector<std::string>& names,
                                           const std::vector<float>& alphas,
                                           const std::vector<float>& betas);
};

}  // namespace kiln::ops
