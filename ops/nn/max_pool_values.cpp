#include "ops/nn/max_pool_values.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "core/error.h"
#include "core/threading.h"

namespace kiln::ops {

namespace {

// out[ox] = max of the KW values at row[(ox - first) * S + i], for ox in [first, end); the same
// comparisons in the same order as the bounded loop (NaNs are skipped there too).
template <int KW, int S>
void window_max(const float* __restrict row, int64_t first, int64_t end, float* __restrict out) {
  const float lowest = -std::numeric_limits<float>::infinity();
  for (int64_t ox = first; ox < end; ox++) {
    const float* r = row + (ox - first) * S;
    float best = lowest;
#pragma GCC unroll 4
    for (int i = 0; i < KW; i++) best = r[i] > best ? r[i] : best;
    out[ox] = best;
  }
}

}  // namespace

MaxPoolValues::MaxPoolValues(std::shared_ptr<const Pool> reference)
    : reference_(std::move(reference)) {}

bool MaxPoolValues::supports(const Pool& pool, const Fact& input) {
  if (pool.kind() != PoolKind::Max || input.dt != DatumType::F32) return false;
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
  KILN_ENSURE(x.dtype() == DatumType::F32 && (x.rank() == 3 || x.rank() == 4),
              "MaxPoolValues: input must be f32 of rank 3 or 4");
  WindowGeometry g = reference_->geometry().complete(x.rank() - 2, "MaxPool");
  Shape in_spatial(x.shape().begin() + 2, x.shape().end());
  auto r = g.resolve(in_spatial, "MaxPool");
  Window3 w = make_window3(g, in_spatial, r.output, r.pad_begin, "MaxPool");
  Shape out_shape = {x.dim(0), x.dim(1)};
  out_shape.insert(out_shape.end(), r.output.begin(), r.output.end());
  Tensor& y = ctx.output(0, DatumType::F32, out_shape);
  if (y.numel() == 0) return;
  const int64_t planes = x.dim(0) * x.dim(1);
  const int64_t ih = w.in[1], iw = w.in[2], oh = w.out[1], ow = w.out[2];
  const int64_t kh = w.kernel[1], kw = w.kernel[2], sy = w.stride[1], sx = w.stride[2];
  const int64_t py = w.pad[1], px = w.pad[2];
  const float* xd = x.data<float>();
  float* yd = y.data<float>();
  const float lowest = -std::numeric_limits<float>::infinity();
  // Outputs [in0, in1) have their whole window inside the row: fixed-width loops for them.
  const int64_t in0 = std::min<int64_t>(ow, (px + sx - 1) / sx);
  const int64_t in1 =
      iw - kw + px < 0 ? in0 : std::clamp<int64_t>((iw - kw + px) / sx + 1, in0, ow);
  auto body = [&](int64_t p0, int64_t p1) {
    thread_local std::vector<float> row;
    row.resize(static_cast<size_t>(iw));
    for (int64_t p = p0; p < p1; p++) {
      const float* xp = xd + p * ih * iw;
      float* yp = yd + p * oh * ow;
      for (int64_t oy = 0; oy < oh; oy++) {
        // Column maxima over the kernel rows inside the input.
        int64_t y0 = std::max<int64_t>(oy * sy - py, 0);
        int64_t y1 = std::min<int64_t>(oy * sy - py + kh, ih);
        float* rr = row.data();
        if (y0 >= y1) {
          std::fill(row.begin(), row.end(), lowest);
        } else {
          std::copy_n(xp + y0 * iw, iw, rr);
          for (int64_t yy = y0 + 1; yy < y1; yy++) {
            const float* src = xp + yy * iw;
            for (int64_t i = 0; i < iw; i++) rr[i] = src[i] > rr[i] ? src[i] : rr[i];
          }
        }
        float* out = yp + oy * ow;
        auto edge = [&](int64_t ox) {
          int64_t x0 = std::max<int64_t>(ox * sx - px, 0);
          int64_t x1 = std::min<int64_t>(ox * sx - px + kw, iw);
          float best = lowest;
          for (int64_t i = x0; i < x1; i++) best = rr[i] > best ? rr[i] : best;
          out[ox] = best;
        };
        for (int64_t ox = 0; ox < in0; ox++) edge(ox);
        if (kw == 3 && sx == 2) {
          window_max<3, 2>(rr + in0 * sx - px, in0, in1, out);
        } else if (kw == 3 && sx == 1) {
          window_max<3, 1>(rr + in0 * sx - px, in0, in1, out);
        } else if (kw == 2 && sx == 2) {
          window_max<2, 2>(rr + in0 * sx - px, in0, in1, out);
        } else {
          for (int64_t ox = in0; ox < in1; ox++) edge(ox);
        }
        for (int64_t ox = in1; ox < ow; ox++) edge(ox);
      }
    }
  };
  int64_t work = planes * oh * ow * kh * kw;
  int threads = static_cast<int>(std::clamp<int64_t>(work / 65536, 1, num_threads()));
  parallel_for(planes, body, threads);
}

}  // namespace kiln::ops
