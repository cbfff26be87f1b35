#include "ops/image/resize_f32.h"

#include "base/error.h"
#include "base/threading.h"

namespace kiln::ops {

std::unique_ptr<OpState> ResizeF32::make_state(const FactRefs&) const {
  return std::make_unique<Tables>();
}

void ResizeF32::build(Tables& t, const Shape& in) const {
  const Resize::AxisPlan p = reference_->plan(in, scales_.empty() ? nullptr : &scales_,
                                              sizes_.empty() ? nullptr : &sizes_);
  t.in = in;
  t.out = p.out;
  const size_t rank = in.size();
  t.fast = rank >= 2;
  // The outer axes must map every position to itself (tf_half_pixel_for_nn resamples even an
  // axis of scale 1, and round_prefer_ceil then shifts it by one).
  for (size_t ax = 0; ax + 2 < rank && t.fast; ax++) {
    t.fast = p.out[ax] == in[ax];
    if (!t.fast || reference_->options().coord != Resize::Coord::TfHalfPixelForNn) continue;
    const std::vector<Resize::Taps> taps = reference_->axis_taps(ax, in, p, 0.0, 1.0);
    for (size_t o = 0; o < taps.size() && t.fast; o++) {
      const Resize::Taps& tap = taps[o];
      t.fast = !tap.empty() && tap[0].first == static_cast<int64_t>(o) && tap[0].second == 1.0;
      for (size_t j = 1; j < tap.size() && t.fast; j++) t.fast = tap[j].second == 0.0;
    }
  }
  if (!t.fast) return;
  const bool linear = reference_->options().mode == Resize::Mode::Linear;
  for (size_t k = 0; k < 2; k++) {
    const size_t ax = rank - 2 + k;
    const std::vector<Resize::Taps> taps = reference_->axis_taps(ax, in, p, 0.0, 1.0);
    const size_t n = taps.size();
    for (auto* v : {&t.idx[k][0], &t.idx[k][1]}) v->assign(n, 0);
    for (auto* v : {&t.w[k][0], &t.w[k][1]}) v->assign(n, 0.0f);
    for (size_t o = 0; o < n; o++) {
      const Resize::Taps& tap = taps[o];
      // Nearest: one tap; linear without antialias: the two neighbours (or fewer at a border).
      if (tap.empty() || tap.size() > 2 || (!linear && tap.size() != 1)) {
        t.fast = false;
        return;
      }
      for (size_t j = 0; j < tap.size(); j++) {
        t.idx[k][j][o] = static_cast<int32_t>(tap[j].first);
        t.w[k][j][o] = static_cast<float>(tap[j].second);
      }
      if (tap.size() == 1) t.idx[k][1][o] = t.idx[k][0][o];  // weight 0: never read
    }
    kernels::ResizeAxis& a = t.axis[k];
    a.in = in[ax];
    a.out = p.out[ax];
    a.i0 = t.idx[k][0].data();
    a.i1 = linear ? t.idx[k][1].data() : nullptr;
    a.w0 = linear ? t.w[k][0].data() : nullptr;
    a.w1 = linear ? t.w[k][1].data() : nullptr;
  }
  // An axis that keeps its length with the identity map: the reference skips it (exactly); the
  // tables above say the same (index o, weight 1 and 0).
}

void ResizeF32::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  Tables& t = ctx.op_state<Tables>(*this);
  if (x.dtype() != DatumType::F32 || x.rank() < 2) return reference_->eval(ctx, inputs);
  if (t.in != x.shape()) build(t, x.shape());
  if (!t.fast) return reference_->eval(ctx, inputs);
  Tensor& y = ctx.output(0, DatumType::F32, t.out);
  const size_t rank = x.rank();
  int64_t planes = 1;
  for (size_t ax = 0; ax + 2 < rank; ax++) planes *= x.dim(ax);
  if (y.numel() == 0) return;
  if (reference_->options().mode == Resize::Mode::Nearest) {
    kernels::resize_nearest_2d(x.data<float>(), planes, t.axis[0], t.axis[1], y.data<float>());
  } else {
    float* scratch = ctx.scratch<float>(static_cast<size_t>(num_threads() * x.dim(rank - 1)));
    kernels::resize_linear_2d(x.data<float>(), planes, t.axis[0], t.axis[1], y.data<float>(),
                              scratch);
  }
}

}  // namespace kiln::ops
