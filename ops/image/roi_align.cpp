#include "ops/image/roi_align.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

namespace kiln::ops {

Attributes RoiAlign::attributes() const {
  return {{"mode", o_.max_mode ? "max" : "avg"},
          {"output_height", std::to_string(o_.output_height)},
          {"output_width", std::to_string(o_.output_width)},
          {"sampling_ratio", std::to_string(o_.sampling_ratio)},
          {"spatial_scale", fmt::format("{}", o_.spatial_scale)},
          {"coordinate_transformation_mode", o_.half_pixel ? "half_pixel" : "output_half_pixel"}};
}

std::vector<Fact> RoiAlign::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 3, 3);
  const Fact& x = required(inputs, 0, name());
  const Fact& rois = required(inputs, 1, name());
  const Fact& idx = required(inputs, 2, name());
  KILN_ENSURE(is_float(x.dt), "RoiAlign: X must be float, got {}", name_of(x.dt));
  KILN_ENSURE(rois.dt == x.dt, "RoiAlign: rois type {} differs from X {}", name_of(rois.dt),
              name_of(x.dt));
  KILN_ENSURE(is_integer(idx.dt), "RoiAlign: batch_indices must be integer, got {}",
              name_of(idx.dt));
  KILN_ENSURE(x.rank() == 4, "RoiAlign: X must have rank 4, got {}", x.rank());
  KILN_ENSURE(rois.rank() == 2 && (!rois.shape[1].is_int() || rois.shape[1].to_int() == 4),
              "RoiAlign: rois must be [num_rois, 4], got [{}]", dims_to_string(rois.shape));
  KILN_ENSURE(idx.rank() == 1, "RoiAlign: batch_indices must be 1-D, got rank {}", idx.rank());
  KILN_ENSURE(o_.output_height >= 1 && o_.output_width >= 1 && o_.sampling_ratio >= 0,
              "RoiAlign: output sizes must be positive and sampling_ratio non-negative");
  return {Fact(x.dt, std::vector<Dim>{rois.shape[0], x.shape[1], Dim(o_.output_height),
                                      Dim(o_.output_width)})};
}

void RoiAlign::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  const Tensor& rois = required(inputs, 1, name());
  const Tensor& bidx = required(inputs, 2, name());
  KILN_ENSURE(x.rank() == 4 && rois.rank() == 2 && rois.dim(1) == 4 && bidx.rank() == 1 &&
                  bidx.dim(0) == rois.dim(0),
              "RoiAlign: bad input shapes [{}], [{}], [{}]", shape_to_string(x.shape()),
              shape_to_string(rois.shape()), shape_to_string(bidx.shape()));
  const int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3), r = rois.dim(0);
  const int64_t oh = o_.output_height, ow = o_.output_width;
  Tensor& y = ctx.output(0, x.dtype(), {r, c, oh, ow});
  std::vector<int64_t> batches = bidx.to_i64_vector();
  dispatch_numeric(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_integral_v<T>) {
      const T* px = x.data<T>();
      T* py = y.data<T>();
      const double offset = o_.half_pixel ? 0.5 : 0.0;
      for (int64_t ri = 0; ri < r; ri++) {
        int64_t b = batches[static_cast<size_t>(ri)];
        KILN_ENSURE(b >= 0 && b < n, "RoiAlign: batch index {} out of range [0, {})", b, n);
        auto roi = [&](int64_t k) {
          return rois.value_as_double(ri * 4 + k) * static_cast<double>(o_.spatial_scale) - offset;
        };
        double x1 = roi(0), y1 = roi(1), x2 = roi(2), y2 = roi(3);
        double roi_w = x2 - x1, roi_h = y2 - y1;
        if (!o_.half_pixel) {
          roi_w = std::max(roi_w, 1.0);
          roi_h = std::max(roi_h, 1.0);
        }
        double bin_h = roi_h / static_cast<double>(oh), bin_w = roi_w / static_cast<double>(ow);
        int64_t grid_h = o_.sampling_ratio > 0
                             ? o_.sampling_ratio
                             : static_cast<int64_t>(std::ceil(roi_h / static_cast<double>(oh)));
        int64_t grid_w = o_.sampling_ratio > 0
                             ? o_.sampling_ratio
                             : static_cast<int64_t>(std::ceil(roi_w / static_cast<double>(ow)));
        double count = static_cast<double>(std::max<int64_t>(grid_h * grid_w, 1));
        for (int64_t ch = 0; ch < c; ch++) {
          const T* plane = px + (b * c + ch) * h * w;
          auto v = [&](int64_t yy, int64_t xx) { return static_cast<double>(plane[yy * w + xx]); };
          for (int64_t ph = 0; ph < oh; ph++) {
            for (int64_t pw = 0; pw < ow; pw++) {
              double acc = 0;
              bool first = true;
              for (int64_t iy = 0; iy < grid_h; iy++) {
                double sy = y1 + static_cast<double>(ph) * bin_h +
                            (static_cast<double>(iy) + 0.5) * bin_h / static_cast<double>(grid_h);
                for (int64_t ix = 0; ix < grid_w; ix++) {
                  double sx = x1 + static_cast<double>(pw) * bin_w +
                              (static_cast<double>(ix) + 0.5) * bin_w / static_cast<double>(grid_w);
                  double t[4] = {0, 0, 0, 0};
                  if (!(sy < -1.0 || sy > static_cast<double>(h) || sx < -1.0 ||
                        sx > static_cast<double>(w))) {
                    double yy = std::max(sy, 0.0), xx = std::max(sx, 0.0);
                    auto y_lo = static_cast<int64_t>(yy), x_lo = static_cast<int64_t>(xx);
                    int64_t y_hi = y_lo + 1, x_hi = x_lo + 1;
                    if (y_lo >= h - 1) {
                      y_lo = y_hi = h - 1;
                      yy = static_cast<double>(y_lo);
                    }
                    if (x_lo >= w - 1) {
                      x_lo = x_hi = w - 1;
                      xx = static_cast<double>(x_lo);
                    }
                    double ly = yy - static_cast<double>(y_lo), lx = xx - static_cast<double>(x_lo);
                    double hy = 1 - ly, hx = 1 - lx;
                    t[0] = hy * hx * v(y_lo, x_lo);
                    t[1] = hy * lx * v(y_lo, x_hi);
                    t[2] = ly * hx * v(y_hi, x_lo);
                    t[3] = ly * lx * v(y_hi, x_hi);
                  }
                  if (o_.max_mode) {
                    // Max of the weighted corner terms, as onnxruntime (the reference) does.
                    double m = std::max(std::max(t[0], t[1]), std::max(t[2], t[3]));
                    acc = first ? m : std::max(acc, m);
                  } else {
                    acc += t[0] + t[1] + t[2] + t[3];
                  }
                  first = false;
                }
              }
              py[((ri * c + ch) * oh + ph) * ow + pw] =
                  static_cast<T>(o_.max_mode ? acc : acc / count);
            }
          }
        }
      }
    }
  });
}

Cost RoiAlign::cost(const FactRefs& inputs) const {
  std::vector<Fact> out = output_facts(inputs);
  Cost cst;
  // Four taps per sample; the adaptive sample count is data dependent, count one per bin.
  int64_t samples = o_.sampling_ratio > 0 ? o_.sampling_ratio * o_.sampling_ratio : 1;
  cst.fma = out[0].volume() * Dim(4 * samples);
  return cst;
}

}  // namespace kiln::ops
