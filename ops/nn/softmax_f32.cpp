#include "ops/nn/softmax_f32.h"

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
