#include "ops/quant/qconv_packed.h"

#include <algorithm>
#include <cstring>

#include "base/threading.h"
#include "fmt/format.h"
#include "kernels/quant/qim2col.h"
#include "ops/core/plan_cache.h"

namespace kiln::ops {

namespace {
using kernels::OutputType;

size_t out_bytes(OutputType t) {
  return t == OutputType::U8 || t == OutputType::I8 ? 1 : 4;
}

// What one input shape resolves to: the output shape and the plane geometry the kernels take.
struct QConvPlan {
  Shape out;
  kernels::QDepthwisePlane g{};
  bool direct = false;  // a 1x1 stride-1 unpadded conv reads x as the packed operand directly
};
using QConvPlans = PlanCache<Shape, QConvPlan>;

QConvPlan make_plan(const quant::ConvGeometry& geo, const Shape& xs, const Shape& ws) {
  const quant::ConvResolved r = quant::resolve_conv(geo, xs, ws, "QConvPacked");
  const bool two_d = xs.size() == 4;
  QConvPlan p;
  p.out = r.out;
  p.g = {two_d ? xs[2] : 1,          xs.back(),
         two_d ? r.out[2] : 1,       r.out.back(),
         two_d ? r.kernel[0] : 1,    r.kernel.back(),
         two_d ? r.strides[0] : 1,   r.strides.back(),
         two_d ? r.dilations[0] : 1, r.dilations.back(),
         two_d ? r.pad_begin[0] : 0, r.pad_begin.back()};
  const kernels::QDepthwisePlane& g = p.g;
  p.direct = g.kh == 1 && g.kw == 1 && g.stride_h == 1 && g.stride_w == 1 && g.pad_top == 0 &&
             g.pad_left == 0 && g.oh == g.h && g.ow == g.w;
  return p;
}
}  // namespace

DatumType datum_of(kernels::OutputType t) {
  switch (t) {
    case OutputType::U8:
      return DatumType::U8;
    case OutputType::I8:
      return DatumType::I8;
    case OutputType::I32:
      return DatumType::I32;
    case OutputType::F32:
      break;
  }
  return DatumType::F32;
}

QConvPacked::QConvPacked(QConvParams params) : p_(std::move(params)) {
  const Shape& ws = p_.w_shape;
  KILN_ENSURE(ws.size() == 3 || ws.size() == 4, "QConvPacked: 1-D or 2-D convolutions only");
  m_ = ws[0];
  groups_ = p_.geometry.group;
  KILN_ENSURE(groups_ >= 1 && m_ % groups_ == 0, "QConvPacked: bad group");
  mg_ = m_ / groups_;
  k_ = shape_numel(ws) / m_;
  KILN_ENSURE(static_cast<int64_t>(p_.w.size()) == m_ * k_ &&
                  static_cast<int64_t>(p_.bias.size()) == m_ &&
                  (p_.w_zp.size() == 1 || static_cast<int64_t>(p_.w_zp.size()) == m_),
              "QConvPacked: inconsistent parameters");
  if (p_.output != OutputType::I32)
    KILN_ENSURE(static_cast<int64_t>(p_.mult.size()) == m_,
                "QConvPacked: {} multipliers for {} "
                "channels",
                p_.mult.size(), m_);
  const bool w_zp_zero =
      std::all_of(p_.w_zp.begin(), p_.w_zp.end(), [](int32_t z) { return z == 0; });
  depthwise_ = ws[1] == 1 && mg_ == 1;
  kernel_ = &kernels::default_q_kernel(p_.w_signed && w_zp_zero, false);
  offsets_ = p_.bias;
  if (depthwise_) {
    dw_weights_.resize(static_cast<size_t>(m_ * k_));
    for (int64_t c = 0; c < m_; c++)
      for (int64_t t = 0; t < k_; t++) {
        const uint8_t b = p_.w[static_cast<size_t>(c * k_ + t)];
        const int32_t v = p_.w_signed ? static_cast<int8_t>(b) : b;
        dw_weights_[static_cast<size_t>(c * k_ + t)] =
            v - p_.w_zp[p_.w_zp.size() == 1 ? 0 : static_cast<size_t>(c)];
      }
    return;
  }
  const int32_t zdot = kernels::qdot_zero_point(*kernel_, p_.x_signed, p_.x_zp);
  for (int64_t g = 0; g < groups_; g++) {
    kernels::QOperand a;
    a.data = p_.w.data() + g * mg_ * k_;
    a.is_signed = p_.w_signed;
    a.stride_lane = k_;
    a.stride_k = 1;
    a.zp = p_.w_zp.data() + (p_.w_zp.size() == 1 ? 0 : g * mg_);
    a.zp_per_lane = p_.w_zp.size() != 1;
    const size_t bytes = kernels::qpacked_bytes(*kernel_, true, mg_, k_);
    auto buf = std::make_shared<kernels::AlignedFloats>((bytes + 3) / 4);
    kernels::qpack(*kernel_, true, a, mg_, k_, buf->data());
    packed_.push_back(std::move(buf));
    kernels::qadd_dot_correction(*kernel_, a, mg_, k_, zdot, offsets_.data() + g * mg_);
  }
}

std::shared_ptr<QConvPacked> QConvPacked::with_clamp(float lo, float hi) const {
  QConvParams p = p_;
  p.min = std::max(p.min, lo);
  p.max = std::min(p.max, hi);
  return std::make_shared<QConvPacked>(std::move(p));
}

void append_output_attributes(Attributes& a, kernels::OutputType output, int32_t y_zp, float min,
                              float max) {
  a.emplace_back("output", name_of(datum_of(output)));
  if (output == kernels::OutputType::U8 || output == kernels::OutputType::I8)
    a.emplace_back("y_zero_point", std::to_string(y_zp));
  if (std::isfinite(min) || std::isfinite(max))
    a.emplace_back("clamp", fmt::format("{},{}", min, max));
}

Attributes QConvPacked::attributes() const {
  Attributes a = p_.geometry.attributes();
  a.emplace_back("kernel", kernel_->name);
  append_output_attributes(a, p_.output, p_.y_zp, p_.min, p_.max);
  return a;
}

std::vector<Fact> QConvPacked::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(x.dt == (p_.x_signed ? DatumType::I8 : DatumType::U8),
              "QConvPacked: input must be {}, got {}", p_.x_signed ? "i8" : "u8", name_of(x.dt));
  std::vector<Dim> wd(p_.w_shape.begin(), p_.w_shape.end());
  return {Fact(datum_of(p_.output), quant::conv_output_dims(p_.geometry, x.shape, wd, name()))};
}

std::unique_ptr<OpState> QConvPacked::make_state(const FactRefs&) const {
  return std::make_unique<QConvPlans>();
}

void QConvPacked::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  const Shape& xs = x.shape();
  KILN_ENSURE(
      x.dtype() == (p_.x_signed ? DatumType::I8 : DatumType::U8) && xs.size() == p_.w_shape.size(),
      "QConvPacked: input must be {} of rank {}, got {} [{}]", p_.x_signed ? "i8" : "u8",
      p_.w_shape.size(), name_of(x.dtype()), shape_to_string(xs));
  const QConvPlan& plan = ctx.op_state<QConvPlans>(*this).get(
      xs, [&] { return make_plan(p_.geometry, xs, p_.w_shape); });
  Tensor& y = ctx.output(0, datum_of(p_.output), plan.out);
  const kernels::QDepthwisePlane& pg = plan.g;
  const int64_t n = xs[0], c = xs[1];
  const int64_t cg = c / groups_, plane = pg.oh * pg.ow, in_plane = pg.h * pg.w;
  const uint8_t* xb = static_cast<const uint8_t*>(x.raw_data());
  uint8_t* yb = static_cast<uint8_t*>(y.raw_data());
  const size_t esize = out_bytes(p_.output);

  kernels::Epilogue ep;
  ep.output = p_.output;
  ep.out_zero_point = p_.y_zp;
  ep.min = p_.min;
  ep.max = p_.max;
  if (p_.output != OutputType::I32) ep.row_scale = p_.mult.data();
  ep.row_offset = offsets_.data();

  if (depthwise_ && kernels::qdepthwise_prefers_channels(pg)) {
    // Small planes: dw_lanes channels per call, a lane per channel.
    const int threads = effective_threads(0);
    const int64_t lanes = kernel_->dw_lanes;
    const int64_t blocks = (m_ + lanes - 1) / lanes;
    const int64_t slot =
        static_cast<int64_t>((kernels::qdepthwise_channels_scratch_bytes(pg) + 63) / 64 * 64);
    uint8_t* scratch_all = ctx.scratch<uint8_t>(static_cast<size_t>(threads * slot + 64));
    uint8_t* scratch0 =
        reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(scratch_all) + 63) / 64 * 64);
    parallel_for(
        n * blocks,
        [&](int64_t b0, int64_t b1) {
          void* scratch = scratch0 + current_thread_slot() * slot;
          for (int64_t b = b0; b < b1; b++) {
            const int64_t batch = b / blocks, c0 = b % blocks * lanes;
            const int64_t nch = std::min(lanes, m_ - c0);
            kernels::QTileArgs t = kernels::qtile_args(ep, yb, plane, c0, 0);
            t.c = yb + (batch * m_ + c0) * plane * esize;
            kernel_->depthwise_channels(pg, xb + (batch * m_ + c0) * in_plane, in_plane,
                                        p_.x_signed, p_.x_zp, dw_weights_.data() + c0 * k_, nch, t,
                                        scratch);
          }
        },
        0, std::max<int64_t>(1, 16384 / std::max<int64_t>(plane * k_ * lanes, 1)));
    return;
  }
  if (depthwise_) {
    const int threads = effective_threads(0);
    // Per thread slot: the plane's sums, then the kernel's padded copy (8-byte aligned).
    const int64_t slot = (plane + 1) / 2 * 2 +
                         static_cast<int64_t>((kernels::qdepthwise_scratch_bytes(pg) + 7) / 8 * 2);
    int32_t* acc_all = ctx.scratch<int32_t>(static_cast<size_t>(threads * slot));
    parallel_for(
        n * m_,
        [&](int64_t b0, int64_t b1) {
          int32_t* acc = acc_all + current_thread_slot() * slot;
          void* pad = acc + (plane + 1) / 2 * 2;
          for (int64_t b = b0; b < b1; b++) {
            const int64_t ch = b % m_;
            // Channel ch's parameters, output plane b.
            kernels::QTileArgs t = kernels::qtile_args(ep, yb, plane, ch, 0);
            t.c = yb + b * plane * esize;
            kernel_->depthwise(pg, xb + b * in_plane, p_.x_signed, p_.x_zp,
                               dw_weights_.data() + ch * k_, t, acc, pad, b > b0);
          }
        },
        0, std::max<int64_t>(1, 16384 / std::max<int64_t>(plane * k_, 1)));
    return;
  }

  const bool direct = plan.direct;
  uint8_t* cols =
      direct ? nullptr
             : ctx.scratch<uint8_t>(static_cast<size_t>(k_ * plane) + kernels::kQIm2colSlack);
  void* im2col_scratch =
      direct ? nullptr : ctx.scratch<uint8_t>(kernels::q8_im2col_scratch_bytes(pg));
  void* bpacked = ctx.scratch<uint8_t>(kernels::qpacked_bytes(*kernel_, false, plane, k_));
  const uint8_t pad = static_cast<uint8_t>(p_.x_zp);
  for (int64_t b = 0; b < n; b++) {
    for (int64_t g = 0; g < groups_; g++) {
      const uint8_t* xg = xb + (b * c + g * cg) * in_plane;
      kernels::QOperand bo;
      bo.is_signed = p_.x_signed;
      bo.stride_lane = 1;
      bo.stride_k = plane;
      bo.zp = &p_.x_zp;
      if (direct) {
        bo.data = xg;
      } else {
        // im2col: row (ci, ky, kx) of the K x plane matrix; taps in the padding read the zero
        // point (adding nothing).
        kernels::q8_im2col(pg, cg, xg, pad, cols, im2col_scratch);
        bo.data = cols;
      }
      kernels::qpack(*kernel_, false, bo, plane, k_, bpacked);
      kernels::Epilogue eg = ep;
      eg.row_offset = offsets_.data() + g * mg_;
      if (eg.row_scale) eg.row_scale += g * mg_;
      kernels::qmmm(*kernel_, mg_, plane, k_, packed_[static_cast<size_t>(g)]->data(), bpacked, eg,
                    yb + (b * m_ + g * mg_) * plane * esize, plane);
    }
  }
}

Cost QConvPacked::cost(const FactRefs& inputs) const {
  Cost c;
  std::vector<Dim> wd(p_.w_shape.begin(), p_.w_shape.end());
  c.fma = quant::conv_fma(p_.geometry, required(inputs, 0, name()).shape, wd, name());
  c.fma_type = DatumType::I8;
  c.params_bytes = Dim(static_cast<int64_t>(p_.w.size() + 4 * p_.bias.size()));
  return c;
}

}  // namespace kiln::ops
