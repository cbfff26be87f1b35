// Element-wise conversions between f32 and 8-bit quantized tensors with one scale and zero point
// (per tensor): QuantizeLinear, DequantizeLinear, the requantization of QRequant and the QAdd
// of two 8-bit tensors. Compiled once per ISA from one source (qconvert_impl.h, GCC vector
// extensions) and dispatched on active_isa().
//
// Every kernel computes each element with exactly the float operations of the scalar reference
// (ONNX's definition in float), so every ISA gives the same bits:
//   dequantize: y = float(x - z) * s
//   quantize:   y = clamp(round_half_even(x / s), lo - z, hi - z) + z (NaN -> lo), the clamp done
//               before the rounding, as ops/quant/quantize_linear.cpp
//   requantize: quantize(dequantize(x)) with the two tensors' parameters
//   add:        quantize(dequantize(a) + dequantize(b)), each product rounded before the sum
//               (no fused multiply-add; see qconvert_impl.h)
// (tests/kernels/qconvert_test.cpp: every 8-bit input, or every pair for add, and random floats
// with ties and specials, under every ISA this CPU runs.)
#pragma once

#include <cstdint>

#include "base/isa.h"

namespace kiln::kernels {

// One 8-bit tensor's quantization: real = (q - zp) * scale, q u8 or i8.
struct Q8 {
  float scale = 1;
  int32_t zp = 0;
  bool is_signed = false;
};

struct QConvert {
  // y[i] (u8 / i8 as q.is_signed) = quantize(x[i]); n values.
  void (*quantize)(const float* x, void* y, int64_t n, Q8 q);
  // y[i] = dequantize(x[i]) (x u8 / i8 as q.is_signed).
  void (*dequantize)(const void* x, float* y, int64_t n, Q8 q);
  // y[i] = quantize_yq(dequantize_xq(x[i])).
  void (*requantize)(const void* x, void* y, int64_t n, Q8 xq, Q8 yq);
  // y[i] = quantize_yq(dequantize_aq(a[i]) + dequantize_bq(b[i])).
  void (*add)(const void* a, const void* b, void* y, int64_t n, Q8 aq, Q8 bq, Q8 yq);
};

// The kernels of an ISA (generic is portable C++; an ISA this CPU cannot run gives generic).
const QConvert& qconvert(Isa isa);
// The kernels of active_isa().
const QConvert& qconvert();

QConvert qconvert_generic();
#if defined(__x86_64__) && defined(KILN_HAVE_X86_TILES)
QConvert qconvert_avx2();
QConvert qconvert_avx512();
#endif

}  // namespace kiln::kernels
