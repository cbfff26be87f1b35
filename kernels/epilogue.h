// The fused epilogue: what every producer kernel (packed matrix multiply, convolutions,
// depthwise, Winograd) does to each output after its sum, before or right after the output is
// stored -- one mechanism for all of them.
//
// Two stages, in this order:
//   1. In registers, inside the micro-kernel, before the single store (fixed order):
//        v = acc * row_scale[i] * col_scale[j] + row_bias[i] + col_bias[j]
//            + residual[i * residual_ld + j] + (accumulate ? C[i, j] : 0)
//        v = max(v, 0) + leaky_alpha * min(v, 0)   (when leaky)
//        v = min(max(v, min), max)                 (when either bound is finite)
//        v = v + residual[i * residual_ld + j]     (instead of the first residual, when
//                                                   residual_last: an Add after a Relu)
//   2. Post steps, in order, over each block of outputs right after it is stored (a tile of a
//      product, a channel range of a depthwise conv, a plane of a Winograd conv), while it is
//      still in L1: any unary function of the vectorized set, or a binary op with an operand that
//      is a scalar, one value per row, one per column, or a full matrix.
//   Integer products (kernels/quant/qmmm.h) add a stage 0 before stage 1 and a requantize step
//   after it, so int8 outputs come out of the same mechanism:
//   0. In registers, on the i32 sums: s = acc + row_offset[i] + col_offset[j] (i32 biases and
//      the zero-point corrections, precomputed per channel); then v = float(s) enters stage 1.
//   1'. Requantize (output U8 / I8): y = saturate(round_half_even(v) + out_zero_point), with the
//      row / column scales of stage 1 as the requantization multipliers and its clamp as a fused
//      ReLU / Clip in the pre-zero-point domain. Output I32: s stored as is (stage 1 unused).
//   Post steps are float-only: an integer output takes none.
// Null pointers and default values mean "nothing to do". The register stage is written once for
// every ISA (kernels/epilogue_impl.h); post steps run through kernels/elementwise/vec_math.
#pragma once

#include <cstdint>
#include <limits>

namespace kiln::kernels {

// The unary functions a post step can apply (kernels/elementwise/vec_math.h states their
// accuracy). HardSigmoid: max(0, min(1, alpha x + beta)); HardSwish: x * max(0, min(1, x / 6 +
// 1/2)); LeakyRelu: x < 0 ? alpha x : x; Clamp: min(max(x, alpha), beta), NaN kept.
enum class UnaryFn : uint8_t {
  Exp,
  Sigmoid,
  Tanh,
  Erf,
  Gelu,
  GeluTanh,
  Silu,
  HardSigmoid,
  HardSwish,
  LeakyRelu,
  Clamp,
  Elu,              // x >= 0 ? x : alpha expm1(x)
  Selu,             // beta (gamma) * (x > 0 ? x : alpha expm1(x))
  Celu,             // x > 0 ? x : alpha expm1(x / alpha)
  Softplus,         // log(1 + exp(x))
  Mish,             // x tanh(softplus(x))
  Softsign,         // x / (1 + |x|)
  ThresholdedRelu,  // x > alpha ? x : 0
  Abs,
  Neg,
  Sqrt,
  Reciprocal,
  Log
};
const char* unary_fn_name(UnaryFn fn);

// y = a op b, element-wise. Max / Min: a NaN operand wins (numpy's maximum / minimum). PRelu:
// a < 0 ? a * b : a (a the input, b the slope).
enum class BinaryFn : uint8_t { Add, Sub, Mul, Div, Max, Min, PRelu };
const char* binary_fn_name(BinaryFn fn);

struct PostStep {
  enum class Kind : uint8_t { Unary, Binary } kind = Kind::Unary;
  UnaryFn unary = UnaryFn::Sigmoid;
  float alpha = 0, beta = 0;  // HardSigmoid's
  BinaryFn binary = BinaryFn::Add;
  // Where the binary operand's value for output (i, j) is: operand[0], operand[i],
  // operand[j], or operand[i * ld + j].
  enum class Operand : uint8_t { Scalar, Row, Col, Full } operand_kind = Operand::Scalar;
  const float* operand = nullptr;
  int64_t ld = 0;
  bool operand_first = false;  // operand op value (else value op operand)
};

// The element type an epilogue stores (F32 for float products; the others for int8 products).
enum class OutputType : uint8_t { F32, I32, U8, I8 };

struct Epilogue {
  static constexpr int kMaxPostSteps = 6;
  // Stage 0 (integer products only).
  const int32_t* row_offset = nullptr;  // m values
  const int32_t* col_offset = nullptr;  // n values
  // Stage 1.
  const float* row_scale = nullptr;  // m values
  const float* col_scale = nullptr;  // n values
  const float* row_bias = nullptr;   // m values
  const float* col_bias = nullptr;   // n values
  const float* residual = nullptr;   // m x n, row stride residual_ld
  int64_t residual_ld = 0;
  bool residual_last = false;  // the residual is added after leaky and clamp instead
  bool accumulate = false;
  bool leaky = false;
  float leaky_alpha = 0.0f;
  float min = -std::numeric_limits<float>::infinity();
  float max = std::numeric_limits<float>::infinity();
  // Requantize (integer products only): what is stored, and the zero point of U8 / I8 outputs.
  OutputType output = OutputType::F32;
  int32_t out_zero_point = 0;
  // Stage 2.
  PostStep post[kMaxPostSteps];
  int post_count = 0;
};

// Applies ep's post steps to a rows x cols block of stored outputs c (row stride ldc) whose first
// output is (i0, j0) of the whole output, with the active ISA's vectorized kernels.
void apply_post_steps(const Epilogue& ep, float* c, int64_t ldc, int64_t rows, int64_t cols,
                      int64_t i0, int64_t j0);

// Applies stage 1 to a rows x cols block of raw sums `acc` (row stride ld_acc) whose first
// output is (i0, j0), storing into c (the whole output, row stride ldc). Portable; for kernels
// that compute into a buffer first (edge tiles without their own epilogue).
void apply_register_stage(const float* acc, int64_t ld_acc, int64_t rows, int64_t cols, int64_t i0,
                          int64_t j0, const Epilogue& ep, float* c, int64_t ldc);
// Both stages (tests, reference paths).
void apply_epilogue(const float* acc, int64_t ld_acc, int64_t rows, int64_t cols, int64_t i0,
                    int64_t j0, const Epilogue& ep, float* c, int64_t ldc);

}  // namespace kiln::kernels
