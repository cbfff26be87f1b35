#include "ops/quant/qmatmul_packed.h"

#include <algorithm>

#include "fmt/format.h"
#include "ops/quant/qconv_packed.h"

namespace kiln::ops {

namespace {
using kernels::OutputType;
}

QMatMulPacked::QMatMulPacked(QMatMulParams params) : p_(std::move(params)) {
  const int64_t k = p_.k, n = p_.n;
  KILN_ENSURE(k >= 1 && n >= 1 && static_cast<int64_t>(p_.w.size()) == k * n &&
                  static_cast<int64_t>(p_.bias.size()) == n &&
                  (p_.w_zp.size() == 1 || static_cast<int64_t>(p_.w_zp.size()) == n) &&
                  (p_.output == OutputType::I32 || static_cast<int64_t>(p_.mult.size()) == n),
              "QMatMulPacked: inconsistent parameters");
  const bool w_zp_zero =
      std::all_of(p_.w_zp.begin(), p_.w_zp.end(), [](int32_t z) { return z == 0; });
  kernel_ = &kernels::default_q_kernel(p_.w_signed && w_zp_zero, true);
  kernels::QOperand b;
  b.data = p_.w.data();
  b.is_signed = p_.w_signed;
  b.stride_lane = p_.w_transposed ? k : 1;
  b.stride_k = p_.w_transposed ? 1 : n;
  b.zp = p_.w_zp.data();
  b.zp_per_lane = p_.w_zp.size() != 1;
  const size_t bytes = kernels::qpacked_bytes(*kernel_, false, n, k);
  packed_ = std::make_shared<kernels::AlignedFloats>((bytes + 3) / 4);
  kernels::qpack(*kernel_, false, b, n, k, packed_->data());
  offsets_ = p_.bias;
  // (Wide16 kernels only: their offsets carry no Dot4 correction, which the matrix-vector sums,
  // zero point subtracted from the activations, must not get.)
  gemv_ = kernel_->gemv && kernel_->format == kernels::QFormat::Wide16 && p_.w_transposed &&
          p_.w_signed && w_zp_zero;
  kernels::qadd_dot_correction(
      *kernel_, b, n, k, kernels::qdot_zero_point(*kernel_, p_.x_signed, p_.x_zp), offsets_.data());
}

std::shared_ptr<QMatMulPacked> QMatMulPacked::with_clamp(float lo, float hi) const {
  QMatMulParams p = p_;
  p.min = std::max(p.min, lo);
  p.max = std::min(p.max, hi);
  return std::make_shared<QMatMulPacked>(std::move(p));
}

Attributes QMatMulPacked::attributes() const {
  Attributes a;
  a.emplace_back("k", std::to_string(p_.k));
  a.emplace_back("n", std::to_string(p_.n));
  a.emplace_back("kernel", kernel_->name);
  append_output_attributes(a, p_.output, p_.y_zp, p_.min, p_.max);
  return a;
}

std::vector<Fact> QMatMulPacked::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(x.dt == (p_.x_signed ? DatumType::I8 : DatumType::U8),
              "QMatMulPacked: input must be {}, got {}", p_.x_signed ? "i8" : "u8", name_of(x.dt));
  KILN_ENSURE(x.rank() >= 2, "QMatMulPacked: input must have rank >= 2");
  if (x.shape.back().is_int())
    KILN_ENSURE(x.shape.back().to_int() == p_.k,
                "QMatMulPacked: input has {} columns, weights {} rows", x.shape.back().to_int(),
                p_.k);
  std::vector<Dim> out = x.shape;
  out.back() = Dim(p_.n);
  return {Fact(datum_of(p_.output), out)};
}

void QMatMulPacked::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  Shape& out = ctx.temp_shape(0);
  out.assign(x.shape().begin(), x.shape().end());
  KILN_ENSURE(!out.empty() && out.back() == p_.k, "QMatMulPacked: input has {} columns, not {}",
              out.empty() ? 0 : out.back(), p_.k);
  out.back() = p_.n;
  Tensor& y = ctx.output(0, datum_of(p_.output), out);
  const int64_t m = shape_numel(x.shape()) / p_.k;
  kernels::QOperand a;
  a.data = x.raw_data();
  a.is_signed = p_.x_signed;
  a.stride_lane = p_.k;
  a.stride_k = 1;
  a.zp = &p_.x_zp;
  kernels::Epilogue ep;
  ep.output = p_.output;
  ep.out_zero_point = p_.y_zp;
  ep.min = p_.min;
  ep.max = p_.max;
  if (p_.output != OutputType::I32) ep.col_scale = p_.mult.data();
  ep.col_offset = offsets_.data();
  if (m == 1 && gemv_) {
    int16_t* a16 = ctx.scratch<int16_t>(static_cast<size_t>(p_.k));
    int32_t* acc = ctx.scratch<int32_t>(static_cast<size_t>(p_.n));
    if (p_.x_signed) {
      const int8_t* xs = x.data<int8_t>();
      for (int64_t kk = 0; kk < p_.k; kk++) a16[kk] = static_cast<int16_t>(xs[kk] - p_.x_zp);
    } else {
      const uint8_t* xu = x.data<uint8_t>();
      for (int64_t kk = 0; kk < p_.k; kk++) a16[kk] = static_cast<int16_t>(xu[kk] - p_.x_zp);
    }
    kernel_->gemv(a16, reinterpret_cast<const int8_t*>(p_.w.data()), p_.n, p_.k, acc);
    kernel_->row(acc, p_.n, kernels::qtile_args(ep, y.raw_data(), p_.n, 0, 0));
    return;
  }
  void* apacked = ctx.scratch<uint8_t>(kernels::qpacked_bytes(*kernel_, true, m, p_.k));
  kernels::qpack(*kernel_, true, a, m, p_.k, apacked);
  kernels::qmmm(*kernel_, m, p_.n, p_.k, apacked, packed_->data(), ep, y.raw_data(), p_.n);
}

Cost QMatMulPacked::cost(const FactRefs& inputs) const {
  Cost c;
  const Fact& x = required(inputs, 0, name());
  Dim rows = Dim(1);
  for (size_t i = 0; i + 1 < x.shape.size(); i++) rows = rows * x.shape[i];
  c.fma = rows * Dim(p_.k * p_.n);
  c.fma_type = DatumType::I8;
  c.params_bytes = Dim(static_cast<int64_t>(p_.w.size() + 4 * p_.bias.size()));
  return c;
}

}  // namespace kiln::ops
