// A quantized matrix product with constant weights, run by the int8 kernels (kernels/quant):
//   y[..., i, j] = requantize(sum_k (x[..., i, k] - x_zp) * (w[k, j] - w_zp[j]) + bias[j])
// x u8/s8 of rank >= 2 (leading dims folded into rows), w u8/s8 [K, N] (or [N, K] when
// `w_transposed`, from Gemm transB), w_zp / w_scale per tensor or per column, an i32 bias, the
// output u8 / i8 / f32 / i32 as for QConvPacked. Made by passes/quant_ops from QLinearMatMul /
// MatMulInteger with a constant B and from QDQ MatMul / Gemm patterns.
#pragma once

#include <memory>
#include <vector>

#include "core/op.h"
#include "kernels/aligned_buffer.h"
#include "kernels/quant/qmmm.h"

namespace kiln::ops {

struct QMatMulParams {
  int64_t k = 0, n = 0;
  bool w_transposed = false;  // w bytes as [N, K] (else [K, N])
  bool x_signed = false;
  int32_t x_zp = 0;
  bool w_signed = true;
  std::vector<uint8_t> w;
  std::vector<int32_t> w_zp;  // 1 or N
  std::vector<int32_t> bias;  // N (zeros when none)
  std::vector<float> mult;    // N (unused for I32 output)
  kernels::OutputType output = kernels::OutputType::U8;
  int32_t y_zp = 0;
  float min = -std::numeric_limits<float>::infinity();
  float max = std::numeric_limits<float>::infinity();
};

class QMatMulPacked : public Op {
 public:
  explicit QMatMulPacked(QMatMulParams params);
  std::string name() const override { return "QMatMulPacked"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;
  const QMatMulParams& params() const { return p_; }
  std::shared_ptr<QMatMulPacked> with_clamp(float lo, float hi) const;

 private:
  QMatMulParams p_;
  const kernels::QMicroKernel* kernel_ = nullptr;
  std::shared_ptr<kernels::AlignedFloats> packed_;
  std::vector<int32_t> offsets_;  // N: bias + corrections
  // One activation row (m = 1) goes through the kernel's matrix-vector sums on p_.w itself:
  // [N, K] signed weights with zero point 0 and a kernel that has them.
  bool gemv_ = false;
};

}  // namespace kiln::ops
