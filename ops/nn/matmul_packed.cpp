#include "ops/nn/matmul_packed.h"

#include <algorithm>

#include "base/error.h"
#include "base/threading.h"
#include "ops/core/plan_cache.h"

namespace kiln::ops {

namespace {
// A session's product plans, by row count and thread count.
using MatMulPlans = PlanCache<std::pair<int64_t, int>, kernels::MmmPlan>;
}  // namespace

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
  if (!steps_.empty()) attrs.emplace_back("epilogue", steps_.describe());
  return attrs;
}

std::vector<Fact> MatMulPacked::output_facts(const FactRefs& inputs) const {
  return reference_->output_facts(without_operands(inputs, steps_));
}

Cost MatMulPacked::cost(const FactRefs& inputs) const {
  return reference_->cost(without_operands(inputs, steps_));
}

std::unique_ptr<OpState> MatMulPacked::make_state(const FactRefs&) const {
  return std::make_unique<MatMulPlans>();
}

OpPtr MatMulPacked::with_output_step(const OutputStep& step, const FactRefs& inputs,
                                     const Fact* operand) const {
  OutputStep s = step;
  if (s.kind == OutputStep::Kind::Binary) {
    if (!operand) return nullptr;
    const Fact out = output_facts(inputs).at(0);
    // One call; rows are every output axis but the last (flattened), columns the last axis.
    if (out.rank() < 2) return nullptr;
    auto kind = classify_operand(out.shape, operand->shape, 0, out.rank() - 2);
    if (!kind || operand->dt != DatumType::F32) return nullptr;
    s.operand = *kind;
    s.input = inputs.size();
  }
  auto copy = std::make_shared<MatMulPacked>(*this);
  if (!copy->steps_.add(s, RegisterStage{})) return nullptr;
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
  // Rows: every output axis but the last, flattened (binary steps only on outputs of rank >= 2).
  if (!steps_.empty()) {
    steps_.lower(inputs, out_shape, out_shape.size() >= 2 ? out_shape.size() - 2 : 0, 0, ep);
  }
  const int threads = num_threads();
  const kernels::MmmPlan& plan = ctx.op_state<MatMulPlans>(*this).get(
      {m, threads}, [&] { return kernels::plan_mmm(*kernel_, m, n_, k_, false, true, threads); });
  // A: row i, depth kk at a[i * k + kk] (transposed: a[kk * m + i]).
  kernels::StridedSource src_a(a.data<float>(), m, k_, config_.trans_a ? 1 : k_,
                               config_.trans_a ? m : 1, kernel_->mr);
  kernels::mmm(plan, src_a, *packed_b_, ep, y.data<float>(), n_,
               ctx.scratch<float>(plan.scratch_floats));
}

}  // namespace kiln::ops
