#include "ops/nn/conv_packed.h"

#include <algorithm>

#include "core/error.h"
#include "core/threading.h"
#include "kernels/conv/conv_in_place.h"
#include "kernels/conv/depthwise.h"
#include "kernels/conv/im2col.h"
#include "kernels/mmm/mmm_in_place.h"
#include "ops/nn/residual_input.h"

namespace kiln::ops {

namespace {
constexpr int kWinogradTile = 4;  // F(4x4, 3x3); see the constructor

kernels::ConvGeometry conv_geometry(const Window3& w3) {
  kernels::ConvGeometry geo;
  for (int a = 0; a < 3; a++) {
    geo.in[a] = w3.in[a];
    geo.out[a] = w3.out[a];
    geo.kernel[a] = w3.kernel[a];
    geo.stride[a] = w3.stride[a];
    geo.dilation[a] = w3.dilation[a];
    geo.pad[a] = w3.pad[a];
  }
  return geo;
}
}  // namespace

ConvPacked::ConvPacked(std::shared_ptr<const Conv> reference, WindowGeometry geometry,
                       int64_t group, const Tensor& weights, const Tensor* bias,
                       const Shape* in_spatial)
    : reference_(std::move(reference)), geo_(std::move(geometry)), group_(group) {
  KILN_ENSURE(weights.dtype() == DatumType::F32 && weights.rank() >= 3,
              "ConvPacked: weights must be f32 [M, C/group, k...]");
  out_channels_ = weights.dim(0);
  in_channels_per_group_ = weights.dim(1);
  kernel_size_ = 1;
  for (size_t i = 2; i < weights.rank(); i++) kernel_size_ *= weights.dim(i);
  KILN_ENSURE(group_ >= 1 && out_channels_ % group_ == 0, "ConvPacked: bad group {}", group_);
  kernel_ = &kernels::default_micro_kernel();
  const float* w = weights.data<float>();
  depthwise_ = in_channels_per_group_ == 1 && group_ == out_channels_ && group_ > 1;
  if (depthwise_) {
    weights_ = std::make_shared<std::vector<float>>(w, w + weights.numel());
  } else {
    // 3x3 kernels: the Winograd filter transform too, when the channels make it pay (the
    // geometry, known at run time, is checked then). F(4x4, 3x3): on AVX2, one thread, it beat
    // F(2x2, 3x3) on every squeezenet fire expand conv (55x55 16->64: 0.51 vs 0.57 ms, 27x27
    // 32->128: 0.45 vs 0.53, 13x13 48->192: 0.26 vs 0.35, 13x13 64->256: 0.35 vs 0.51; fewer
    // products per output and, on 13x13, 16 tiles that fill one 16-wide panel instead of 49 in
    // four), at ~6x F(2x2)'s rounding error (still ~5e-6 of the outputs' range on those convs).
    kernels::ConvGeometry g3;
    g3.kernel[1] = g3.kernel[2] = 3;
    g3.out[1] = g3.out[2] = 1 << 20;
    bool use_winograd = group_ == 1 && weights.rank() == 4 && weights.dim(2) == 3 &&
                        weights.dim(3) == 3 &&
                        kernels::winograd_pays(*kernel_, out_channels_, in_channels_per_group_, g3);
    // A plane known now decides for every run: one form of the weights (F(4x4)'s are 4x the
    // size of the packed ones).
    bool winograd_only = false;
    if (use_winograd && in_spatial) {
      const WindowGeometry::Resolved r = geo_.resolve(*in_spatial, "Conv");
      const kernels::ConvGeometry known =
          conv_geometry(make_window3(geo_, *in_spatial, r.output, r.pad_begin, "Conv"));
      winograd_only =
          kernels::winograd_pays(*kernel_, out_channels_, in_channels_per_group_, known);
      use_winograd = winograd_only;
    }
    if (use_winograd) {
      winograd_ = std::make_shared<kernels::WinogradWeights>(
          w, out_channels_, in_channels_per_group_, *kernel_, kWinogradTile);
    }
    int64_t mg = out_channels_ / group_, kin = in_channels_per_group_ * kernel_size_;
    for (int64_t g = 0; g < group_ && !winograd_only; g++) {
      packed_.push_back(
          std::make_shared<kernels::PackedMatrix>(w + g * mg * kin, mg, kin, kin, 1, kernel_->mr));
    }
  }
  if (bias) {
    KILN_ENSURE(bias->dtype() == DatumType::F32 && bias->numel() == out_channels_,
                "ConvPacked: bias must hold {} f32 values", out_channels_);
    const float* b = bias->data<float>();
    bias_ = std::make_shared<std::vector<float>>(b, b + out_channels_);
  }
}

Attributes ConvPacked::attributes() const {
  Attributes attrs = reference_->attributes();
  std::string kernel = kernel_->name;
  if (depthwise_) kernel = "depthwise";
  if (winograd_) kernel = fmt::format("winograd_f{}3/{}", winograd_->tile(), kernel_->name);
  attrs.emplace_back("kernel", kernel);
  if (residual_input_ >= 0) attrs.emplace_back("residual", "fused");
  if (min_ > -std::numeric_limits<float>::infinity())
    attrs.emplace_back("min", fmt::format("{}", min_));
  if (max_ < std::numeric_limits<float>::infinity())
    attrs.emplace_back("max", fmt::format("{}", max_));
  return attrs;
}

std::vector<Fact> ConvPacked::output_facts(const FactRefs& inputs) const {
  std::vector<Fact> out = reference_->output_facts(without_residual(inputs, residual_input_));
  check_residual(inputs, residual_input_, out[0], name());
  return out;
}

Cost ConvPacked::cost(const FactRefs& inputs) const {
  return reference_->cost(without_residual(inputs, residual_input_));
}

bool ConvPacked::clamped() const {
  return min_ > -std::numeric_limits<float>::infinity() ||
         max_ < std::numeric_limits<float>::infinity();
}

std::shared_ptr<ConvPacked> ConvPacked::with_residual(size_t input) const {
  KILN_ENSURE(!depthwise_ && !clamped() && residual_input_ < 0,
              "ConvPacked: a residual goes only on a non-depthwise conv without clamp or residual");
  auto copy = std::make_shared<ConvPacked>(*this);
  copy->residual_input_ = static_cast<long>(input);
  return copy;
}

std::shared_ptr<ConvPacked> ConvPacked::with_clamp(float min, float max) const {
  auto copy = std::make_shared<ConvPacked>(*this);
  copy->min_ = std::max(min_, min);
  copy->max_ = std::min(max_, max);
  return copy;
}

void ConvPacked::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  Shape& out_shape = ctx.temp_shape(3);
  kernels::ConvGeometry geo = output_geometry(ctx, x, out_shape);
  Tensor& y = ctx.output(0, DatumType::F32, out_shape);
  if (y.numel() == 0) return;
  compute(inputs, geo, out_shape, y.data<float>(), out_channels_ * geo.out_size());
}

kernels::ConvGeometry ConvPacked::output_geometry(EvalContext& ctx, const Tensor& x,
                                                  Shape& out_shape) const {
  KILN_ENSURE(x.dtype() == DatumType::F32 && x.rank() >= 3 && x.rank() <= 5,
              "ConvPacked: input must be f32 of rank 3 to 5, got {} [{}]", name_of(x.dtype()),
              shape_to_string(x.shape()));
  const int64_t c_in = in_channels_per_group_ * group_;
  KILN_ENSURE(x.dim(1) == c_in, "ConvPacked: input has {} channels, weights expect {}", x.dim(1),
              c_in);
  Shape& in_spatial = ctx.temp_shape(0);
  in_spatial.assign(x.shape().begin() + 2, x.shape().end());
  Shape& out_spatial = ctx.temp_shape(1);
  Shape& pad_begin = ctx.temp_shape(2);
  geo_.resolve_into(in_spatial, "Conv", out_spatial, pad_begin);
  kernels::ConvGeometry geo =
      conv_geometry(make_window3(geo_, in_spatial, out_spatial, pad_begin, "Conv"));
  out_shape.clear();
  out_shape.push_back(x.dim(0));
  out_shape.push_back(out_channels_);
  out_shape.insert(out_shape.end(), out_spatial.begin(), out_spatial.end());
  return geo;
}

void ConvPacked::compute(const TensorRefs& inputs, const kernels::ConvGeometry& geo,
                         const Shape& out_shape, float* yd, int64_t y_batch_stride) const {
  const Tensor& x = required(inputs, 0, name());
  const int64_t c_in = in_channels_per_group_ * group_;
  const float* xd = x.data<float>();
  const int64_t is = geo.in_size(), os = geo.out_size();
  const float* bias = bias_ ? bias_->data() : nullptr;
  const float* residual = nullptr;
  if (residual_input_ >= 0) {
    const Tensor& r = required(inputs, static_cast<size_t>(residual_input_), name());
    KILN_ENSURE(r.dtype() == DatumType::F32 && r.shape() == out_shape,
                "ConvPacked: residual {} [{}] does not match the output [{}]", name_of(r.dtype()),
                shape_to_string(r.shape()), shape_to_string(out_shape));
    residual = r.data<float>();
  }

  if (depthwise_) {
    for (int64_t n = 0; n < x.dim(0); n++) {
      kernels::DepthwiseArgs a;
      a.x = xd + n * c_in * is;
      a.w = weights_->data();
      a.bias = bias;
      a.y = yd + n * y_batch_stride;
      a.channels = out_channels_;
      a.geo = geo;
      a.min = min_;
      a.max = max_;
      kernels::Isa isa = kernel_->isa;
      // At least ~32k multiply-adds per task.
      int64_t per_channel = std::max<int64_t>(1, os * kernel_size_);
      int threads = static_cast<int>(
          std::clamp<int64_t>(out_channels_ * per_channel / 32768, 1, num_threads()));
      // Split on whole blocks of the kernel's channel block (16 on AVX-512, 8 on AVX2, 4 on
      // NEON): small planes are computed a vector width of channels at a time, and a block split
      // between threads would be computed by both (results are the same bits either way).
      const int64_t kBlock = kernels::depthwise_channel_block(isa);
      const int64_t blocks = (out_channels_ + kBlock - 1) / kBlock;
      // Pieces of at least ~32k multiply-adds: claiming one costs a compare-and-swap.
      const int64_t grain = std::max<int64_t>(1, 32768 / (kBlock * per_channel));
      // Scratch for each thread slot, owned by the calling thread and lent out: a worker that
      // first takes a chunk in a late run allocates nothing (steady-state runs must not).
      const int64_t per_slot = (kernels::depthwise_scratch_floats(geo, isa) + 15) / 16 * 16;
      thread_local std::vector<float> lent;
      if (lent.size() < static_cast<size_t>(per_slot * threads))
        lent.resize(static_cast<size_t>(per_slot * threads));
      // (A pointer, not `lent` itself, goes into the lambda: named there, a thread_local is the
      // running thread's own.)
      float* const lent_base = lent.data();
      parallel_for(
          blocks,
          [&](int64_t b0, int64_t b1) {
            kernels::DepthwiseArgs chunk = a;
            chunk.scratch = per_slot > 0 ? lent_base + per_slot * current_thread_slot() : nullptr;
            kernels::depthwise_conv_f32(chunk, b0 * kBlock, std::min(b1 * kBlock, out_channels_),
                                        isa);
          },
          threads, grain);
    }
    return;
  }

  const int64_t cg = in_channels_per_group_, mg = out_channels_ / group_;
  const int64_t kin = cg * kernel_size_;
  const bool pointwise = geo.is_pointwise();
  for (int64_t n = 0; n < x.dim(0); n++) {
    for (int64_t g = 0; g < group_; g++) {
      const float* xg = xd + (n * c_in + g * cg) * is;
      float* yg = yd + n * y_batch_stride + g * mg * os;
      kernels::Epilogue ep;
      ep.row_bias = bias ? bias + g * mg : nullptr;
      if (residual) {
        ep.residual = residual + (n * out_channels_ + g * mg) * os;
        ep.residual_ld = os;
      }
      ep.min = min_;
      ep.max = max_;
      if (packed_.empty()) {
        // Only Winograd weights (the plane was known at optimize time): the run must match it.
        KILN_ENSURE(kernels::winograd_pays(*kernel_, mg, cg, geo),
                    "ConvPacked: input plane {}x{} is not the one this conv was optimized for",
                    geo.in[1], geo.in[2]);
      }
      if (winograd_ && (packed_.empty() || kernels::winograd_pays(*kernel_, mg, cg, geo))) {
        // Scratch owned by the calling thread and lent to the workers (no allocation once sized).
        thread_local std::vector<float> wpadded, wscratch;
        const auto np =
            static_cast<size_t>(kernels::winograd_padded_floats(cg, geo, winograd_->tile()));
        const auto ns = static_cast<size_t>(kernels::winograd_scratch_floats(*winograd_, geo));
        if (wpadded.size() < np) wpadded.resize(np);
        if (wscratch.size() < ns) wscratch.resize(ns);
        kernels::winograd_conv(*winograd_, xg, geo, ep, yg, wpadded.data(), wscratch.data());
      } else if (pointwise && kernels::mmm_in_place_pays(*kernel_, mg, kin)) {
        // Few output channels: the input planes are read as they are, not packed.
        kernels::mmm_in_place(*kernel_, mg, os, kin, *packed_[g], xg, is, ep, yg, os);
      } else if (pointwise) {
        kernels::StridedSource b(xg, os, kin, 1, is, kernel_->nr);
        kernels::mmm(*kernel_, mg, os, kin, *packed_[g], b, ep, yg, os);
      } else {
        thread_local std::vector<float> padded;
        const auto need = static_cast<size_t>(kernels::Im2colSource::padded_floats(cg, geo));
        if (padded.size() < need) padded.resize(need);
        if (kernels::conv_in_place_pays(*kernel_, geo)) {
          // Output rows that fill whole tiles: the taps are read from the padded planes.
          kernels::conv_in_place(*kernel_, mg, cg, geo, *packed_[g], xg, padded.data(), ep, yg);
        } else {
          kernels::Im2colSource b(xg, cg, geo, kernel_->nr, padded.data());
          kernels::mmm(*kernel_, mg, os, kin, *packed_[g], b, ep, yg, os);
        }
      }
    }
  }
}

}  // namespace kiln::ops
