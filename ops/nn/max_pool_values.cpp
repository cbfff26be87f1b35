#include "ops/nn/max_pool_values.h"

#include "base/error.h"
#include "base/threading.h"
#include "kernels/pool/max_pool_q8.h"
#include "kernels/pool/pool.h"

namespace kiln::ops {

MaxPoolValues::MaxPoolValues(std::shared_ptr<const Pool> reference)
    : reference_(std::move(reference)), geometry_(reference_->geometry(), "MaxPool") {}

bool MaxPoolValues::supports(const Pool& pool, const Fact& input) {
  const bool q8 = input.dt == DatumType::U8 || input.dt == DatumType::I8;
  if (pool.kind() != PoolKind::Max || (input.dt != DatumType::F32 && !q8)) return false;
  if (input.rank() != 3 && input.rank() != 4) return false;
  WindowGeometry g = pool.geometry().complete(input.rank() - 2, "MaxPool");
  for (int64_t d : g.dilations) {
    if (d != 1) return false;
  }
  return true;
}

std::vector<Fact> MaxPoolValues::output_facts(const FactRefs& inputs) const {
  std::vector<Fact> out = reference_->output_facts(inputs);
  out.resize(1);
  return out;
}

void MaxPoolValues::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  const DatumType dt = x.dtype();
  KILN_ENSURE((dt == DatumType::F32 || dt == DatumType::U8 || dt == DatumType::I8) &&
                  (x.rank() == 3 || x.rank() == 4),
              "MaxPoolValues: input must be f32, u8 or i8 of rank 3 or 4");
  WindowGeometry scratch;
  const WindowGeometry& geo = geometry_.get(x.rank() - 2, scratch);
  Shape& out_shape = ctx.temp_shape(3);
  const Window3 w = resolve_pool_window(ctx, x, geo, "MaxPool", out_shape);
  Tensor& y = ctx.output(0, dt, out_shape);
  if (y.numel() == 0) return;
  const int64_t planes = x.dim(0) * x.dim(1);
  const kernels::MaxPool2dGeometry k = pool_2d_geometry(w);
  const int64_t in_plane = k.in_h * k.in_w, out_plane = k.out_h * k.out_w;
  if (dt != DatumType::F32) {
    // 8-bit values (quantized models): one row of column maxima per chunk of planes.
    const int64_t row_bytes = k.in_w + kernels::kQ8RowPad;
    uint8_t* rows = ctx.scratch<uint8_t>(static_cast<size_t>(planes * row_bytes));
    const auto* xb = static_cast<const uint8_t*>(x.raw_data());
    auto* yb = static_cast<uint8_t*>(y.raw_data());
    const bool is_signed = dt == DatumType::I8;
    parallel_for_work(planes, in_plane + out_plane * k.kernel_w, [&](int64_t p0, int64_t p1) {
      if (is_signed)
        kernels::max_pool_2d_i8(reinterpret_cast<const int8_t*>(xb) + p0 * in_plane,
                                reinterpret_cast<int8_t*>(yb) + p0 * out_plane, p1 - p0, k,
                                reinterpret_cast<int8_t*>(rows) + p0 * row_bytes);
      else
        kernels::max_pool_2d_u8(xb + p0 * in_plane, yb + p0 * out_plane, p1 - p0, k,
                                rows + p0 * row_bytes);
    });
    return;
  }
  const float* xd = x.data<float>();
  float* yd = y.data<float>();
  const kernels::PoolKernels& kern = kernels::pool_kernels();
  // One row of column maxima per chunk of planes, from the node's scratch (taken here, on the
  // evaluating thread): no allocation per run on any thread, whichever chunk a worker takes.
  const int64_t row = k.in_w + 1;
  float* rows = ctx.scratch<float>(static_cast<size_t>(planes * row));
  parallel_for_work(planes, in_plane + out_plane * k.kernel_w, [&](int64_t p0, int64_t p1) {
    kern.max_pool_2d(xd + p0 * in_plane, yd + p0 * out_plane, p1 - p0, k, rows + p0 * row);
  });
}

}  // namespace kiln::ops
