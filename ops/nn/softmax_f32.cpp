#include "ops/nn/softmax_f32.h"

#include <algorithm>

#include "base/error.h"
#include "base/threading.h"
#include "kernels/norm/norm.h"

namespace kiln::ops {

void SoftmaxF32::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  KILN_ENSURE(x.dtype() == DatumType::F32 && x.rank() >= row_axis_,
              "{}: input must be f32 of rank >= {}, got {} [{}]", name(), row_axis_,
              name_of(x.dtype()), shape_to_string(x.shape()));
  Tensor& y = ctx.output(0, DatumType::F32, x.shape());
  if (strided_) {
    KILN_ENSURE(row_axis_ < x.rank(), "{}: axis {} out of range for rank {}", name(), row_axis_,
                x.rank());
    if (x.numel() == 0) return;
    const int64_t len = x.dim(row_axis_);
    int64_t inner = 1;
    for (size_t i = row_axis_ + 1; i < x.rank(); i++) inner *= x.dim(i);
    const int64_t outer = x.numel() / (len * inner);
    // Pieces of 64 columns (8 AVX2 vectors) of one outer block each.
    constexpr int64_t kCols = 64;
    const int64_t per_outer = (inner + kCols - 1) / kCols;
    const float* xd = x.data<float>();
    float* yd = y.data<float>();
    const auto& k = kernels::norm_kernels();
    parallel_for_work(outer * per_outer, len * kCols, [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; p++) {
        const int64_t o = p / per_outer, j0 = p % per_outer * kCols;
        const int64_t off = o * len * inner;
        k.softmax_axis(xd + off, yd + off, len, inner, j0, std::min(inner, j0 + kCols), log_);
      }
    });
    return;
  }
  int64_t n = 1;
  for (size_t i = row_axis_; i < x.rank(); i++) n *= x.dim(i);
  if (x.numel() == 0) return;
  const int64_t rows = x.numel() / n;
  const float* xd = x.data<float>();
  float* yd = y.data<float>();
  const auto& k = kernels::norm_kernels();
  parallel_for_work(rows, n, [&](int64_t begin, int64_t end) {
    k.softmax(xd + begin * n, yd + begin * n, end - begin, n, log_);
  });
}

}  // namespace kiln::ops
