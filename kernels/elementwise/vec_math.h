// Vectorized f32 math kernels (exp, sigmoid, tanh, erf, add/sub/mul/div), compiled once per ISA
// from one source (vec_math_impl.h) and dispatched on kernels::active_isa().
//
// Accuracy (tested in tests/kernels/vec_math_test.cpp against std:: in double):
//   exp:     |rel err| <= 4e-7 on [-87, 88] (Cody-Waite range reduction, degree-6 polynomial);
//            0 below -87.3, +inf above 88.7.
//   sigmoid: |abs err| <= 2e-7 (1 / (1 + exp(-x))).
//   tanh:    |abs err| <= 6e-7 (odd polynomial near 0, 1 - 2 / (exp(2x) + 1) elsewhere).
//   erf:     |abs err| <= 5e-7 (Abramowitz & Stegun 7.1.26, 1.5e-7, plus float rounding).
//   gelu, gelu_tanh: see kernels/norm/norm.h; silu: x / (1 + exp(-x)), within 4 ulp of the
//            exact value wherever |y| > 1e-30 (checked on every float, AVX2 and SSE2 builds;
//            tested: 2e-7 |x| + 1e-6 |y|); hard_swish, leaky_relu, clamp, max, min: exact (as the
//            reference); hard_sigmoid within one rounding (alpha x + beta may be one FMA).
//   elu, selu, celu (expm1: a Taylor polynomial below |x| = 0.5, exp - 1 above), softplus
//            (max(x, 0) + log1p(exp(-|x|)), log1p as 2 atanh(u / (2 + u))), mish
//            (x n / (n + 2), n = e^x (e^x + 2)), log (Cephes-style polynomial): within 1e-6
//            relative (+1e-30 absolute) of the exact value; abs, neg, sqrt, reciprocal,
//            softsign, thresholded_relu: exact (as the reference).
#pragma once

#include <cstdint>

#include "kernels/mmm/mmm.h"

namespace kiln::kernels {

struct VecMath {
  void (*exp)(const float* x, float* y, int64_t n);
  void (*sigmoid)(const float* x, float* y, int64_t n);
  void (*tanh)(const float* x, float* y, int64_t n);
  void (*erf)(const float* x, float* y, int64_t n);
  // y = a op b element-wise, op 0..6 = add, sub, mul, div, max, min, prelu (a < 0 ? a b : a;
  // BinaryFn's order); mode 0:
  // a and b arrays of n, 1: b a single value, 2: a a single value. y may alias a or b.
  void (*binary)(int op, int mode, const float* a, const float* b, float* y, int64_t n);
  // y = fn(x), n values (alpha, beta: HardSigmoid's); y may alias x.
  void (*unary)(UnaryFn fn, const float* x, float* y, int64_t n, float alpha, float beta);
};

// The kernels of an ISA (every ISA has them; generic is portable C++).
const VecMath& vec_math(Isa isa);
// The kernels of active_isa().
const VecMath& vec_math();

VecMath vec_math_generic();
#if defined(__x86_64__)
VecMath vec_math_avx2();
VecMath vec_math_avx512();
#endif
#if defined(__aarch64__) || defined(__arm__)
VecMath vec_math_neon();
#endif

}  // namespace kiln::kernels
