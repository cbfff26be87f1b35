#include "ops/signal/window.h"

#include <cmath>
#include <numbers>

#include "base/error.h"

namespace kiln::ops {

std::string Window::name() const {
  switch (kind_) {
    case WindowKind::Hann:
      return "HannWindow";
    case WindowKind::Hamming:
      return "HammingWindow";
    case WindowKind::Blackman:
      return "BlackmanWindow";
  }
  return "Window";
}

Attributes Window::attributes() const {
  return {{"periodic", periodic_ ? "1" : "0"},
          {"output_datatype", std::string(name_of(output_type_))}};
}

std::vector<Fact> Window::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& size = required(inputs, 0, name());
  KILN_ENSURE(size.rank() == 0 && is_integer(size.dt), "{}: size must be an integer scalar",
              name());
  if (size.dims_value && !size.dims_value->empty())
    return {Fact(output_type_, {(*size.dims_value)[0]})};
  return {Fact(output_type_, std::vector<Dim>{Dim::fresh()})};
}

void Window::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  int64_t n = required(inputs, 0, name()).value_as_i64(0);
  KILN_ENSURE(n >= 0 && n < (int64_t{1} << 31), "{}: invalid size {}", name(), n);
  // Periodic windows are one sample of a window of size n+1 (the DFT-friendly form).
  double denominator = periodic_ ? static_cast<double>(n) : static_cast<double>(n - 1);
  Tensor& out = ctx.output(0, output_type_, {n});
  dispatch_numeric(output_type_, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* y = out.data<T>();
    for (int64_t i = 0; i < n; i++) {
      // The spec's formula as written: a symmetric window of size 1 divides 0 by 0 (NaN, as
      // ONNX's reference and ONNX Runtime answer).
      double x = 2.0 * std::numbers::pi * static_cast<double>(i) / denominator;
      double v = 0;
      switch (kind_) {
        case WindowKind::Hann:
          v = 0.5 - 0.5 * std::cos(x);
          break;
        case WindowKind::Hamming:
          v = 25.0 / 46.0 - (21.0 / 46.0) * std::cos(x);
          break;
        case WindowKind::Blackman:
          v = 0.42 - 0.5 * std::cos(x) + 0.08 * std::cos(2 * x);
          break;
      }
      if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>) {
        y[i] = T(static_cast<float>(v));
      } else if constexpr (std::is_integral_v<T>) {
        // The window is a float window cast to the output type: round it to float first, so
        // a value that is 1 up to the double sum's last bit (Blackman's 0.42 + 0.5 + 0.08) is
        // 1, not 0. NaN -> 0, as kiln's Cast (out-of-range float -> int is undefined).
        float f = static_cast<float>(v);
        y[i] = std::isnan(f) ? T(0) : static_cast<T>(f);
      } else {
        y[i] = static_cast<T>(v);
      }
    }
  });
}

}  // namespace kiln::ops
