#include "ops/image/max_roi_pool.h"

#include <algorithm>
#include <cmath>

#include "base/error.h"
#include "ops/nn/nn_common.h"

namespace kiln::ops {

Attributes MaxRoiPool::attributes() const {
  return {{"pooled_shape", ints_to_string({pooled_h_, pooled_w_})},
          {"spatial_scale", fmt::format("{}", spatial_scale_)}};
}

std::vector<Fact> MaxRoiPool::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 2, 2);
  const Fact& x = required(inputs, 0, name());
  const Fact& rois = required(inputs, 1, name());
  KILN_ENSURE(is_float(x.dt) && x.rank() == 4, "MaxRoiPool: X must be a 4-D float tensor");
  KILN_ENSURE(rois.dt == x.dt && rois.rank() == 2 && rois.shape[1] == Dim(5),
              "MaxRoiPool: rois must be [num_rois, 5] of X's type, got [{}] {}",
              dims_to_string(rois.shape), name_of(rois.dt));
  KILN_ENSURE(pooled_h_ > 0 && pooled_w_ > 0, "MaxRoiPool: pooled_shape must be positive");
  return {Fact(x.dt, std::vector<Dim>{rois.shape[0], x.shape[1], pooled_h_, pooled_w_})};
}

namespace {

template <typename T>
void roi_pool(const Tensor& x, const Tensor& rois, int64_t ph, int64_t pw, double scale,
              Tensor& y) {
  using A = nn::Acc<T>;
  const int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3);
  const T* xd = x.data<T>();
  const T* rd = rois.data<T>();
  T* yd = y.data<T>();
  for (int64_t r = 0; r < rois.dim(0); r++) {
    const T* roi = rd + r * 5;
    const int64_t b = static_cast<int64_t>(nn::to_acc<double>(roi[0]));
    KILN_ENSURE(b >= 0 && b < n, "MaxRoiPool: roi {} has batch index {} outside [0, {})", r, b, n);
    auto at = [&](int k) {
      return static_cast<int64_t>(std::round(nn::to_acc<double>(roi[k]) * scale));
    };
    const int64_t x1 = at(1), y1 = at(2), x2 = at(3), y2 = at(4);
    const double bin_h = static_cast<double>(std::max<int64_t>(y2 - y1 + 1, 1)) / ph;
    const double bin_w = static_cast<double>(std::max<int64_t>(x2 - x1 + 1, 1)) / pw;
    for (int64_t ch = 0; ch < c; ch++) {
      const T* plane = xd + (b * c + ch) * h * w;
      for (int64_t i = 0; i < ph; i++) {
        int64_t hs = std::clamp<int64_t>(static_cast<int64_t>(std::floor(i * bin_h)) + y1, 0, h);
        int64_t he =
            std::clamp<int64_t>(static_cast<int64_t>(std::ceil((i + 1) * bin_h)) + y1, 0, h);
        for (int64_t j = 0; j < pw; j++) {
          int64_t ws = std::clamp<int64_t>(static_cast<int64_t>(std::floor(j * bin_w)) + x1, 0, w);
          int64_t we =
              std::clamp<int64_t>(static_cast<int64_t>(std::ceil((j + 1) * bin_w)) + x1, 0, w);
          A best = 0;
          if (he > hs && we > ws) {
            best = nn::to_acc<A>(plane[hs * w + ws]);
            for (int64_t yy = hs; yy < he; yy++)
              for (int64_t xx = ws; xx < we; xx++)
                best = std::max(best, nn::to_acc<A>(plane[yy * w + xx]));
          }
          yd[((r * c + ch) * ph + i) * pw + j] = nn::from_acc<T>(best);
        }
      }
    }
  }
}

}  // namespace

void MaxRoiPool::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  const Tensor& rois = required(inputs, 1, name());
  KILN_ENSURE(x.rank() == 4 && rois.rank() == 2 && rois.dim(1) == 5 && rois.dtype() == x.dtype(),
              "MaxRoiPool: X [{}] and rois [{}] do not fit", shape_to_string(x.shape()),
              shape_to_string(rois.shape()));
  Shape& shape = ctx.temp_shape(0);
  shape.assign({rois.dim(0), x.dim(1), pooled_h_, pooled_w_});
  Tensor& y = ctx.output(0, x.dtype(), shape);
  switch (x.dtype()) {
    case DatumType::F32:
      return roi_pool<float>(x, rois, pooled_h_, pooled_w_, spatial_scale_, y);
    case DatumType::F64:
      return roi_pool<double>(x, rois, pooled_h_, pooled_w_, spatial_scale_, y);
    case DatumType::F16:
      return roi_pool<f16>(x, rois, pooled_h_, pooled_w_, spatial_scale_, y);
    case DatumType::BF16:
      return roi_pool<bf16>(x, rois, pooled_h_, pooled_w_, spatial_scale_, y);
    default:
      fail("MaxRoiPool: unsupported type {}", name_of(x.dtype()));
  }
}

}  // namespace kiln::ops
