// Shared helpers of the quantization ops: rounding and saturation, per-tensor / per-axis
// parameters, and small integer matmul / conv loops (reference, not fast).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/op.h"

namespace kiln::ops::quant {

// Rounds half to even (the current rounding mode is the default nearest-even) then clamps to
// the range of T.
template <typename T>
T saturate_round(double v) {
  double r = std::nearbyint(v);
  constexpr double lo = static_cast<double>(std::numeric_limits<T>::lowest());
  constexpr double hi = static_cast<double>(std::numeric_limits<T>::max());
  if (!(r >= lo)) return std::numeric_limits<T>::lowest();  // also NaN
  if (r > hi) return std::numeric_limits<T>::max();
  return static_cast<T>(r);
}

// The 8-bit type of a quantized tensor: i8 when signed, u8 otherwise.
inline DatumType q8(bool is_signed) {
  return is_signed ? DatumType::I8 : DatumType::U8;
}

// Whether a datum type is one a quantized tensor may have here.
bool is_quantized_type(DatumType dt);
// Elements of an integer tensor as int32 (throws for other types).
std::vector<int32_t> to_i32(const Tensor& t, const std::string& op);
// Elements of a float tensor as float (f16/bf16/f32/f64).
std::vector<float> to_f32(const Tensor& t, const std::string& op);
// Writes v (already rounded/saturated by the caller) into element i of an integer tensor.
void store_saturated(Tensor& t, int64_t i, double v);

// A scale or zero point that is either one value (per tensor) or one value per index along
// `axis` of the tensor it applies to. index(i) gives the parameter index of flat element i.
struct AxisParam {
  bool per_axis = false;
  int64_t inner = 1;  // product of dims after the axis
  int64_t count = 1;
  int64_t index(int64_t i) const { return per_axis ? (i / inner) % count : 0; }
};
// Checks a parameter fact (scalar, one element, or 1-D of x's dim along axis).
void check_axis_param(const Fact& x, const Fact& param, int64_t axis, const std::string& op,
                      const std::string& what);
AxisParam axis_param(const Shape& x, const Shape& param, int64_t axis, const std::string& op,
                     const std::string& what);

// Numpy-matmul output dims of a [..., M, K] x [..., K, N] product (1-D operands promoted).
std::vector<Dim> matmul_output_dims(const std::vector<Dim>& a, const std::vector<Dim>& b,
                                    const std::string& op);
// Integer matmul accumulators: acc[..., m, n] = sum_k (a - a_zp[m]) * (b - b_zp[n]), with
// a_zp of 1 or M values and b_zp of 1 or N values.
struct IntMatMul {
  Shape shape;  // the output shape
  int64_t m = 0, n = 0, k = 0;
  std::vector<int32_t> acc;
};
IntMatMul int_matmul(const Tensor& a, const Tensor& b, const std::vector<int32_t>& a_zp,
                     const std::vector<int32_t>& b_zp, const std::string& op);
// Fma count of a matmul of these facts.
Dim matmul_fma(const std::vector<Dim>& a, const std::vector<Dim>& b, const std::string& op);

// Convolution geometry (attributes as ONNX gives them; empty vectors mean defaults).
struct ConvGeometry {
  std::string auto_pad = "NOTSET";
  std::vector<int64_t> kernel_shape, strides, dilations, pads;
  int64_t group = 1;
  Attributes attributes() const;
};
// [N, M, out spatial...] for x [N, C, spatial...] and w [M, C/group, kernel...].
std::vector<Dim> conv_output_dims(const ConvGeometry& g, const std::vector<Dim>& x,
                                  const std::vector<Dim>& w, const std::string& op);
// Integer conv accumulators with padding contributing zero (i.e. padded with the zero point).
// w_zp has 1 or M values.
struct IntConv {
  Shape shape;
  std::vector<int32_t> acc;
};
IntConv int_conv(const ConvGeometry& g, const Tensor& x, int32_t x_zp, const Tensor& w,
                 const std::vector<int32_t>& w_zp, const std::string& op);
// The geometry resolved for concrete x and w shapes: per spatial axis the kernel, stride,
// dilation and begin pad, and the output shape.
struct ConvResolved {
  std::vector<int64_t> kernel, strides, dilations, pad_begin;
  Shape out;
};
ConvResolved resolve_conv(const ConvGeometry& g, const Shape& x, const Shape& w,
                          const std::string& op);
Dim conv_fma(const ConvGeometry& g, const std::vector<Dim>& x, const std::vector<Dim>& w,
             const std::string& op);

}  // namespace kiln::ops::quant
