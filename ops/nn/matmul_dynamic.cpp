#include "ops/nn/matmul_dynamic.h"

#include "core/error.h"

namespace kiln::ops {

MatMulDynamic::MatMulDynamic(std::shared_ptr<const MatMul> reference)
    : reference_(std::move(reference)), kernel_(&kernels::default_micro_kernel()) {}

void MatMulDynamic::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& a = required(inputs, 0, name());
  const Tensor& b = required(inputs, 1, name());
  const size_t rank = a.rank();
  bool same_batch = a.dtype() == DatumType::F32 && b.dtype() == DatumType::F32 && rank >= 2 &&
                    b.rank() == rank &&
                    std::equal(a.shape().begin(), a.shape().end() - 2, b.shape().begin());
  if (!same_batch || a.dim(rank - 1) != b.dim(rank - 2)) {
    reference_->eval(ctx, inputs);
    return;
  }
  const int64_t m = a.dim(rank - 2), k = a.dim(rank - 1), n = b.dim(rank - 1);
  Shape out(a.shape().begin(), a.shape().end() - 1);
  out.push_back(n);
  Tensor& y = ctx.output(0, DatumType::F32, out);
  if (y.numel() == 0) return;
  const int64_t batches = shape_numel(Shape(a.shape().begin(), a.shape().end() - 2));
  kernels::Epilogue ep;
  if (inputs.size() > 2 && inputs[2]) {  // MatMul's bias: one value per column
    const Tensor& bias = *inputs[2];
    KILN_ENSURE(bias.dtype() == DatumType::F32 && bias.numel() == n,
                "MatMul: bias [{}] does not match {} columns", shape_to_string(bias.shape()), n);
    ep.col_bias = bias.data<float>();
  }
  for (int64_t i = 0; i < batches; i++) {
    kernels::StridedSource sa(a.data<float>() + i * m * k, m, k, k, 1, kernel_->mr);
    kernels::StridedSource sb(b.data<float>() + i * k * n, n, k, 1, n, kernel_->nr);
    kernels::mmm(*kernel_, m, n, k, sa, sb, ep, y.data<float>() + i * m * n, n);
  }
}

}  // namespace kiln::ops
