#include "ops/nn/avg_pool_f32.h"

#include "base/error.h"
#include "base/threading.h"
#include "kernels/pool/pool.h"

namespace kiln::ops {

AvgPoolF32::AvgPoolF32(std::shared_ptr<const Pool> reference, bool count_include_pad)
    : reference_(std::move(reference)),
      count_include_pad_(count_include_pad),
      geometry_(reference_->geometry(), "AveragePool") {}

bool AvgPoolF32::supports(const Pool& pool, const Fact& input) {
  if (pool.kind() != PoolKind::Average || input.dt != DatumType::F32) return false;
  if (input.rank() != 3 && input.rank() != 4) return false;
  WindowGeometry g = pool.geometry().complete(input.rank() - 2, "AveragePool");
  for (int64_t d : g.dilations) {
    if (d != 1) return false;
  }
  return true;
}

void AvgPoolF32::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  KILN_ENSURE(x.dtype() == DatumType::F32 && (x.rank() == 3 || x.rank() == 4),
              "AvgPoolF32: input must be f32 of rank 3 or 4, got {} [{}]", name_of(x.dtype()),
              shape_to_string(x.shape()));
  WindowGeometry scratch;
  const WindowGeometry& geo = geometry_.get(x.rank() - 2, scratch);
  Shape& out_shape = ctx.temp_shape(3);
  const Window3 w = resolve_pool_window(ctx, x, geo, "AveragePool", out_shape);
  KILN_ENSURE(w.dilation[1] == 1 && w.dilation[2] == 1, "AvgPoolF32: dilations must be 1");
  Tensor& y = ctx.output(0, DatumType::F32, out_shape);
  if (y.numel() == 0) return;
  const int64_t planes = x.dim(0) * x.dim(1);
  const kernels::MaxPool2dGeometry k = pool_2d_geometry(w);
  const int64_t in_plane = k.in_h * k.in_w, out_plane = k.out_h * k.out_w;
  const float* xd = x.data<float>();
  float* yd = y.data<float>();
  const kernels::PoolKernels& kern = kernels::pool_kernels();
  // One row of column sums per plane of the node's scratch (taken on the evaluating thread).
  const int64_t row = k.in_w + 1;
  float* rows = ctx.scratch<float>(static_cast<size_t>(planes * row));
  parallel_for_work(planes, in_plane + out_plane * k.kernel_w, [&](int64_t p0, int64_t p1) {
    kern.average_pool_2d(xd + p0 * in_plane, yd + p0 * out_plane, p1 - p0, k, count_include_pad_,
                         rows + p0 * row);
  });
}

}  // namespace kiln::ops
