#include "ops/nn/matmul_packed.h"

#include <algorithm>

#include "core/error.h"
#include "ops/nn/residual_input.h"

namespace kiln::ops {

MatMulPacked::MatMulPacked(OpPtr reference, const Tensor& b, bool trans_b, Config config)
    : reference_(std::move(reference)), config_(std::move(config)) {
  KILN_ENSURE(b.dtype() == DatumType::F32 && b.rank() == 2,
              "MatMulPacked: B must be an f32 matrix");
  k_ = trans_b ? b.dim(1) : b.dim(0);
  n_ = trans_b ? b.dim(0) : b.dim(1);
  KILN_ENSURE(config_.col_bias.empty() || static_cast<int64_t>(config_.col_bias.size()) == n_,
              "MatMulPacked: bias must hold {} values", n_);
  kernel_ = &kernels::default_micro_kernel();
  // Lanes are B's columns: column j, depth kk at b[kk * n + j] (or b[j * k + kk] transposed).
  packed_b_ = std::make_shared<kernels::PackedMatrix>(b.data<float>(), n_, k_, trans_b ? k_ : 1,
                                                      trans_b ? 1 : n_, kernel_->nr);
  if (config_.alpha != 1.0f) col_scale_.assign(static_cast<size_t>(n_), config_.alpha);
}

Attributes MatMulPacked::attributes() const {
  Attributes attrs = reference_->attributes();
  attrs.emplace_back("kernel", kernel_->name);
  if (!config_.col_bias.empty()) attrs.emplace_back("bias", "fused");
  if (residual_input_ >= 0) attrs.emplace_back("residual", "fused");
  if (min_ > -std::numeric_limits<float>::infinity())
    attrs.emplace_back("min", fmt::format("{}", min_));
  if (max_ < std::numeric_limits<float>::infinity())
    attrs.emplace_back("max", fmt::format("{}", max_));
  return attrs;
}

std::vector<Fact> MatMulPacked::output_facts(const FactRefs& inputs) const {
  std::vector<Fact> out = reference_->output_facts(without_residual(inputs, residual_input_));
  check_residual(inputs, residual_input_, out[0], name());
  return out;
}

Cost MatMulPacked::cost(const FactRefs& inputs) const {
  return reference_->cost(without_residual(inputs, residual_input_));
}

bool MatMulPacked::clamped() const {
  return min_ > -std::numeric_limits<float>::infinity() ||
         max_ < std::numeric_limits<float>::infinity();
}

std::shared_ptr<MatMulPacked> MatMulPacked::with_residual(size_t input) const {
  KILN_ENSURE(!clamped() && residual_input_ < 0,
              "MatMulPacked: a residual goes only on a product without clamp or residual");
  auto copy = std::make_shared<MatMulPacked>(*this);
  copy->residual_input_ = static_cast<long>(input);
  return copy;
}

std::shared_ptr<MatMulPacked> MatMulPacked::with_clamp(float min, float max) const {
  auto copy = std::make_shared<MatMulPacked>(*this);
  copy->min_ = std::max(min_, min);
  copy->max_ = std::min(max_, max);
  return copy;
}

void MatMulPacked::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& a = required(inputs, 0, name());
  KILN_ENSURE(a.dtype() == DatumType::F32 && a.rank() >= 1, "MatMulPacked: A must be f32");
  int64_t m, ka;
  Shape& out_shape = ctx.temp_shape(0);
  if (config_.gemm) {
    KILN_ENSURE(a.rank() == 2, "Gemm: A must be a matrix, got [{}]", shape_to_string(a.shape()));
    m = config_.trans_a ? a.dim(1) : a.dim(0);
    ka = config_.trans_a ? a.dim(0) : a.dim(1);
    out_shape = {m, n_};
  } else {
    ka = a.shape().back();
    m = a.numel() / std::max<int64_t>(ka, 1);
    if (ka == 0)
      m = a.rank() >= 2 ? shape_numel(std::span<const int64_t>(a.shape()).first(a.rank() - 1)) : 1;
    out_shape.assign(a.shape().begin(), a.shape().end() - 1);
    out_shape.push_back(n_);
  }
  KILN_ENSURE(ka == k_, "{}: inner dims differ: A [{}] and B with {} rows", reference_->name(),
              shape_to_string(a.shape()), k_);
  Tensor& y = ctx.output(0, DatumType::F32, out_shape);
  if (y.numel() == 0) return;
  kernels::Epilogue ep;
  ep.col_scale = col_scale_.empty() ? nullptr : col_scale_.data();
  ep.col_bias = config_.col_bias.empty() ? nullptr : config_.col_bias.data();
  ep.min = min_;
  ep.max = max_;
  if (residual_input_ >= 0) {
    const Tensor& r = required(inputs, static_cast<size_t>(residual_input_), name());
    KILN_ENSURE(r.dtype() == DatumType::F32 && r.shape() == y.shape(),
                "MatMulPacked: residual {} [{}] does not match the output [{}]", name_of(r.dtype()),
                shape_to_string(r.shape()), shape_to_string(y.shape()));
    ep.residual = r.data<float>();
    ep.residual_ld = n_;
  }
  // A: row i, depth kk at a[i * k + kk] (transposed: a[kk * m + i]).
  kernels::StridedSource src_a(a.data<float>(), m, k_, config_.trans_a ? 1 : k_,
                               config_.trans_a ? m : 1, kernel_->mr);
  kernels::mmm(*kernel_, m, n_, k_, src_a, *packed_b_, ep, y.data<float>(), n_);
}

}  // namespace kiln::ops
