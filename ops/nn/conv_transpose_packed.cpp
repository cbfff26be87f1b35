#include "ops/nn/conv_transpose_packed.h"

#include <algorithm>

#include "base/error.h"
#include "kernels/conv/col2im.h"

namespace kiln::ops {

ConvTransposePacked::ConvTransposePacked(std::shared_ptr<const ConvTranspose> reference,
                                         const Tensor& w, const Tensor* bias)
    : reference_(std::move(reference)), w_shape_(w.shape()) {
  KILN_ENSURE(w.dtype() == DatumType::F32 && w.rank() >= 3,
              "ConvTransposePacked: weights must be f32 of rank >= 3");
  kernel_ = &kernels::default_micro_kernel();
  const int64_t group = reference_->group(), cg = w.dim(0) / group;
  int64_t rows = 1;  // M/g x kernel volume
  for (size_t i = 1; i < w.rank(); i++) rows *= w.dim(i);
  for (int64_t g = 0; g < group; g++) {
    // A[r][k] = W[g * cg + k][r]: lane r at r, k at k * rows.
    groups_.push_back(std::make_shared<kernels::PackedMatrix>(w.data<float>() + g * cg * rows, rows,
                                                              cg, 1, rows, kernel_->mr));
  }
  if (bias) bias_.assign(bias->data<float>(), bias->data<float>() + bias->numel());
}

void ConvTransposePacked::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  KILN_ENSURE(x.dtype() == DatumType::F32, "ConvTransposePacked: input must be f32, got {}",
              name_of(x.dtype()));
  Shape& out_shape = ctx.temp_shape(0);
  const Window3 w = reference_->window(x.shape(), w_shape_, out_shape);
  const int64_t group = reference_->group(), c_in = x.dim(1), cg = c_in / group;
  const int64_t m_out = out_shape[1], mg = m_out / group;
  const int64_t rows = mg * w.kernel_size(), is = w.in_size(), os = w.out_size();
  KILN_ENSURE(bias_.empty() || static_cast<int64_t>(bias_.size()) == m_out,
              "ConvTranspose: bias must hold {} values", m_out);
  Tensor& y = ctx.output(0, DatumType::F32, out_shape);
  if (y.numel() == 0) return;
  const kernels::ConvGeometry geo = conv_geometry(w);
  // Empty input positions or channels: the output is the bias alone.
  float* cols = ctx.scratch<float>(static_cast<size_t>(std::max<int64_t>(is * rows, 1)));
  if (is == 0 || cg == 0) std::fill_n(cols, is * rows, 0.0f);
  const kernels::MmmPlan plan = kernels::plan_mmm(*kernel_, rows, is, cg, true, false);
  float* scratch = ctx.scratch<float>(plan.scratch_floats);
  for (int64_t n = 0; n < x.dim(0); n++) {
    for (int64_t g = 0; g < group; g++) {
      if (is > 0 && cg > 0) {
        // B[k][i] = x[n][g * cg + k][i]: the group's input planes as they are.
        kernels::StridedSource b(x.data<float>() + (n * c_in + g * cg) * is, is, cg, 1, is,
                                 kernel_->nr);
        kernels::mmm(plan, *groups_[static_cast<size_t>(g)], b, kernels::Epilogue{}, cols, is,
                     scratch);
      }
      kernels::col2im_f32(cols, is, mg, geo, bias_.empty() ? nullptr : bias_.data() + g * mg,
                          y.data<float>() + (n * m_out + g * mg) * os);
    }
  }
}

}  // namespace kiln::ops
