#include "ops/signal/dft.h"

#include <cmath>
#include <numbers>
#include <vector>

#include "base/error.h"

namespace kiln::ops {

namespace {
template <typename T>
double to_double(T v) {
  if constexpr (std::is_same_v<T, double>)
    return v;
  else
    return static_cast<double>(static_cast<float>(v));
}
template <typename T>
T from_double(double v) {
  if constexpr (std::is_same_v<T, double>)
    return v;
  else
    return T(static_cast<float>(v));
}
}  // namespace

void dft_1d(const double* in_re, const double* in_im, int64_t in_len, int64_t in_stride,
            int64_t length, bool inverse, double* out_re, double* out_im, int64_t out_len,
            int64_t out_stride) {
  double sign = inverse ? 1.0 : -1.0;
  int64_t n_in = std::min(in_len, length);
  for (int64_t k = 0; k < out_len; k++) {
    double re = 0, im = 0;
    for (int64_t n = 0; n < n_in; n++) {
      // (k*n) mod length keeps the angle small and exact for large transforms.
      double angle = sign * 2.0 * std::numbers::pi * static_cast<double>((k * n) % length) /
                     static_cast<double>(length);
      double c = std::cos(angle), s = std::sin(angle);
      double xr = in_re[n * in_stride], xi = in_im[n * in_stride];
      re += xr * c - xi * s;
      im += xr * s + xi * c;
    }
    if (inverse) {
      re /= static_cast<double>(length);
      im /= static_cast<double>(length);
    }
    out_re[k * out_stride] = re;
    out_im[k * out_stride] = im;
  }
}

Attributes Dft::attributes() const {
  return {{"axis", std::to_string(axis_)},
          {"inverse", inverse_ ? "1" : "0"},
          {"onesided", onesided_ ? "1" : "0"}};
}

size_t Dft::resolve_axis(const FactRefs& inputs, size_t rank) const {
  int64_t axis = axis_;
  if (inputs.size() > 2 && inputs[2]) {
    auto v = inputs[2]->known_i64_values();
    KILN_ENSURE(v && v->size() == 1, "DFT: the axis input must be a constant scalar");
    axis = (*v)[0];
  }
  // As the spec counts: negative axes from the back of all the dims, the last one (real /
  // imaginary) excluded: [-r, -2] or [0, r - 2].
  const int64_t r = static_cast<int64_t>(rank);
  const int64_t given = axis;
  if (axis < 0) axis += r;
  KILN_ENSURE(axis >= 0 && axis <= r - 2, "DFT: axis {} out of range for input rank {}", given,
              rank);
  return static_cast<size_t>(axis);
}

std::vector<Fact> Dft::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 3);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(is_float(x.dt), "DFT: input must be float, got {}", name_of(x.dt));
  KILN_ENSURE(x.rank() >= 2, "DFT: input must be [batch, signal..., 1 or 2], got rank {}",
              x.rank());
  KILN_ENSURE(x.shape.back() == Dim(1) || x.shape.back() == Dim(2),
              "DFT: last axis must be 1 (real) or 2 (complex), got {}", x.shape.back().to_string());
  KILN_ENSURE(!onesided_ || !inverse_, "DFT: onesided inverse transforms are not supported");
  size_t axis = resolve_axis(inputs, x.rank());
  Dim length = x.shape[axis];
  if (inputs.size() > 1 && inputs[1]) {
    auto v = inputs[1]->known_i64_values();
    length = v && v->size() == 1 ? Dim((*v)[0]) : Dim::fresh();
  }
  std::vector<Dim> shape = x.shape;
  shape[axis] = onesided_ ? length.div(2) + Dim(1) : length;
  shape.back() = Dim(2);
  return {Fact(x.dt, shape)};
}

void Dft::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  Fact xf(x.dtype(), x.shape());
  FactRefs refs{&xf};
  Fact axis_fact;
  if (inputs.size() > 2 && inputs[2]) {
    axis_fact = Fact::constant(*inputs[2]);
    refs = {&xf, nullptr, &axis_fact};
  }
  size_t axis = resolve_axis(refs, x.rank());
  int64_t in_len = x.shape()[axis];
  int64_t length = in_len;
  if (inputs.size() > 1 && inputs[1]) length = inputs[1]->value_as_i64(0);
  KILN_ENSURE(length > 0, "DFT: dft_length must be positive, got {}", length);
  int64_t out_len = onesided_ ? length / 2 + 1 : length;
  bool complex_in = x.shape().back() == 2;
  Shape out_shape = x.shape();
  out_shape[axis] = out_len;
  out_shape.back() = 2;
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; d++) outer *= x.shape()[d];
  for (size_t d = axis + 1; d + 1 < x.rank(); d++) inner *= x.shape()[d];
  Tensor& out = ctx.output(0, x.dtype(), out_shape);
  std::vector<double> re(static_cast<size_t>(in_len)), im(static_cast<size_t>(in_len));
  std::vector<double> ore(static_cast<size_t>(out_len)), oim(static_cast<size_t>(out_len));
  dispatch_numeric(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, f16> ||
                  std::is_same_v<T, bf16>) {
      const T* src = x.data<T>();
      T* dst = out.data<T>();
      int64_t channels = complex_in ? 2 : 1;
      for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
          for (int64_t n = 0; n < in_len; n++) {
            int64_t base = ((o * in_len + n) * inner + i) * channels;
            re[n] = to_double(src[base]);
            im[n] = complex_in ? to_double(src[base + 1]) : 0.0;
          }
          dft_1d(re.data(), im.data(), in_len, 1, length, inverse_, ore.data(), oim.data(), out_len,
                 1);
          for (int64_t k = 0; k < out_len; k++) {
            int64_t base = ((o * out_len + k) * inner + i) * 2;
            dst[base] = from_double<T>(ore[k]);
            dst[base + 1] = from_double<T>(oim[k]);
          }
        }
    } else {
      fail("DFT: input must be float");
    }
  });
}

Cost Dft::cost(const FactRefs& inputs) const {
  Cost c;
  const Fact* x = inputs.empty() ? nullptr : inputs[0];
  if (!x) return c;
  auto out = output_facts(inputs);
  // Reference O(n^2) transform: one complex multiply-add (4 FMA) per input sample per bin.
  size_t axis = resolve_axis(inputs, x->rank());
  c.fma = out[0].volume().div(2) * x->shape[axis] * Dim(4);
  return c;
}

}  // namespace kiln::ops
