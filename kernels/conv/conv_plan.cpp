#include "kernels/conv/conv_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "base/error.h"
#include "base/threading.h"
#include "kernels/conv/conv_in_place.h"
#include "kernels/conv/depthwise.h"
#include "kernels/conv/im2col.h"
#include "kernels/mmm/mmm_in_place.h"

namespace kiln::kernels {

namespace {

// F(4x4, 3x3): on AVX2, one thread, it beat F(2x2, 3x3) on every squeezenet fire expand conv
// (55x55 16->64: 0.51 vs 0.57 ms, 27x27 32->128: 0.45 vs 0.53, 13x13 48->192: 0.26 vs 0.35,
// 13x13 64->256: 0.35 vs 0.51; fewer products per output and, on 13x13, 16 tiles that fill one
// 16-wide panel instead of 49 in four), at ~6x F(2x2)'s rounding error (still ~5e-6 of the
// outputs' range on those convs).
constexpr int kWinogradTile = 4;

// Depthwise: threads split whole blocks of the kernel's channel block (16 on AVX-512, 8 on AVX2,
// 4 on NEON: small planes are computed a vector width of channels at a time, and a block split
// between threads would be computed by both), in pieces of at least ~32k multiply-adds (claiming
// one costs a compare-and-swap).
constexpr int64_t kMinPieceFma = 32768;

// Grouped convs with at most this many output channels per group take the direct grouped
// kernel: a group's product is too small for packed panels to pay (RegNet's 16 channels per
// group: each im2col panel served 2 A panels of 8 rows).
constexpr int64_t kGroupedMaxOutputs = 64;

bool grouped_candidate(int64_t group, int64_t out_channels, int64_t in_per_group,
                       int64_t kernel_size, size_t rank) {
  return group > 1 && !(in_per_group == 1 && group == out_channels) && rank <= 4 &&
         out_channels / group <= kGroupedMaxOutputs && kernel_size <= kGroupedConvMaxTaps;
}

size_t lines(int64_t floats) {
  return static_cast<size_t>((std::max<int64_t>(floats, 0) + 15) / 16 * 16);
}

}  // namespace

const char* conv_path_name(ConvPath path) {
  switch (path) {
    case ConvPath::Depthwise:
      return "depthwise";
    case ConvPath::Grouped:
      return "grouped";
    case ConvPath::Winograd:
      return "winograd";
    case ConvPath::Pointwise:
      return "pointwise";
    case ConvPath::PointwiseInPlace:
      return "pointwise_in_place";
    case ConvPath::InPlace:
      return "in_place";
    case ConvPath::Im2col:
      return "im2col";
  }
  return "?";
}

ConvKernel::ConvKernel(const float* w, const std::vector<int64_t>& shape, int64_t group, Isa isa,
                       const ConvGeometry* known)
    : kernel_(&kernels::micro_kernel(isa)), isa_(isa), group_(group) {
  KILN_ENSURE(shape.size() >= 3 && shape.size() <= 5,
              "ConvKernel: weights must be [M, C/group, k...] of rank 3 to 5");
  out_channels_ = shape[0];
  in_per_group_ = shape[1];
  kernel_size_ = 1;
  for (size_t i = 2; i < shape.size(); i++) kernel_size_ *= shape[i];
  KILN_ENSURE(group_ >= 1 && out_channels_ % group_ == 0, "ConvKernel: bad group {}", group_);
  depthwise_ = in_per_group_ == 1 && group_ == out_channels_ && group_ > 1;
  if (depthwise_) {
    taps_.assign(w, w + out_channels_ * kernel_size_);
    return;
  }
  if (grouped_candidate(group_, out_channels_, in_per_group_, kernel_size_, shape.size())) {
    grouped_w_ = grouped_conv_weights(w, out_channels_, group_, in_per_group_, kernel_size_);
    // A known geometry the grouped kernel runs needs no other form.
    if (known && grouped_conv_supported(*known)) return;
  }
  // 3x3 kernels: the Winograd filter transform too, when the channels make it pay (the geometry
  // decides per plan). A geometry known now decides for every run: one form of the weights
  // (F(4x4)'s are 4x the size of the packed ones).
  ConvGeometry g3;
  g3.kernel[1] = g3.kernel[2] = 3;
  g3.out[1] = g3.out[2] = 1 << 20;
  bool use_winograd = group_ == 1 && shape.size() == 4 && shape[2] == 3 && shape[3] == 3 &&
                      winograd_pays(*kernel_, out_channels_, in_per_group_, g3);
  bool winograd_only = false;
  if (use_winograd && known) {
    winograd_only = winograd_pays(*kernel_, out_channels_, in_per_group_, *known);
    use_winograd = winograd_only;
  }
  if (use_winograd) {
    winograd_ =
        std::make_shared<WinogradWeights>(w, out_channels_, in_per_group_, *kernel_, kWinogradTile);
  }
  const int64_t mg = out_channels_ / group_, kin = in_per_group_ * kernel_size_;
  for (int64_t g = 0; g < group_ && !winograd_only; g++) {
    packed_.push_back(
        std::make_shared<PackedMatrix>(w + g * mg * kin, mg, kin, kin, 1, kernel_->mr));
  }
}

std::string ConvKernel::description() const {
  if (depthwise_) return "depthwise";
  if (packed_.empty() && !grouped_w_.empty()) return "grouped_direct";
  if (winograd_) return fmt::format("winograd_f{}3/{}", winograd_->tile(), kernel_->name);
  return kernel_->name;
}

size_t ConvKernel::weight_bytes() const {
  size_t total = (taps_.size() + grouped_w_.size()) * sizeof(float);
  for (const auto& p : packed_) total += p->bytes();
  if (winograd_) {
    for (int xi = 0; xi < winograd_->points(); xi++) total += winograd_->point(xi).bytes();
  }
  return total;
}

ConvPlan ConvKernel::plan(const ConvGeometry& geo, int threads) const {
  ConvPlan p;
  p.geo = geo;
  p.for_threads = threads > 0 ? threads : num_threads();
  p.threads = p.for_threads;
  const int64_t os = geo.out_size();
  if (depthwise_) {
    p.path = ConvPath::Depthwise;
    const int64_t per_channel = std::max<int64_t>(1, os * kernel_size_);
    p.threads = static_cast<int>(
        std::clamp<int64_t>(out_channels_ * per_channel / kMinPieceFma, 1, p.threads));
    p.grain = std::max<int64_t>(1, kMinPieceFma / (depthwise_channel_block(isa_) * per_channel));
    p.per_slot = lines(depthwise_scratch_floats(geo, isa_));
    p.scratch_floats = p.per_slot * static_cast<size_t>(p.threads);
    return p;
  }
  const int64_t cg = in_per_group_, mg = out_channels_ / group_, kin = cg * kernel_size_;
  if (!grouped_w_.empty() && grouped_conv_supported(geo)) {
    p.path = ConvPath::Grouped;
    p.grouped = grouped_conv_layout(group_, cg, mg, geo, isa_);
    const GroupedConvLayout& l = p.grouped;
    const int64_t tile_positions = l.vectors * l.lanes / l.tiles;
    const int64_t item_fma = l.rows * tile_positions * kin;
    p.threads = static_cast<int>(std::clamp<int64_t>(
        group_ * l.tiles * tile_positions * mg * kin / (2 * kMinPieceFma), 1, p.threads));
    p.grain = std::max<int64_t>(1, kMinPieceFma / std::max<int64_t>(item_fma, 1));
    p.per_slot = 16 + lines(l.group_floats);
    p.scratch_floats = p.per_slot * static_cast<size_t>(p.threads);
    return p;
  }
  if (winograd_ && (packed_.empty() || winograd_pays(*kernel_, mg, cg, geo))) {
    // Only Winograd weights (the plane was known when they were made): the run must match it.
    KILN_ENSURE(winograd_pays(*kernel_, mg, cg, geo),
                "ConvKernel: input plane {}x{} is not the one this conv was optimized for",
                geo.in[1], geo.in[2]);
    p.path = ConvPath::Winograd;
    p.padded_at = 0;
    p.kernel_at = lines(winograd_padded_floats(cg, geo, winograd_->tile()));
    p.scratch_floats = p.kernel_at + lines(winograd_scratch_floats(*winograd_, geo, p.threads));
    return p;
  }
  KILN_ENSURE(!packed_.empty(), "ConvKernel: no matrix-product weights for this geometry");
  if (geo.is_pointwise()) {
    if (mmm_in_place_pays(*kernel_, mg, kin)) {
      // Few output channels: the input planes are read as they are, not packed.
      p.path = ConvPath::PointwiseInPlace;
      p.offsets_at = 0;
      p.scratch_floats = lines(2 * kin);
      return p;
    }
    p.path = ConvPath::Pointwise;
    p.mmm = plan_mmm(*kernel_, mg, os, kin, true, false, p.threads);
    p.kernel_at = 0;
    p.scratch_floats = lines(static_cast<int64_t>(p.mmm.scratch_floats));
    return p;
  }
  p.padded_at = 0;
  const size_t padded = lines(Im2colSource::padded_floats(cg, geo));
  if (conv_in_place_pays(*kernel_, geo, mg)) {
    // Output rows that fill whole tiles: the taps are read from the padded planes.
    p.path = ConvPath::InPlace;
    p.offsets_at = padded;
    p.scratch_floats = padded + lines(2 * kin);
    return p;
  }
  p.path = ConvPath::Im2col;
  p.mmm = plan_mmm(*kernel_, mg, os, kin, true, false, p.threads);
  p.kernel_at = padded;
  p.scratch_floats = padded + lines(static_cast<int64_t>(p.mmm.scratch_floats));
  return p;
}

void ConvKernel::run(const ConvPlan& p, const float* x, const Epilogue& ep, float* y,
                     float* scratch) const {
  const ConvGeometry& geo = p.geo;
  const int64_t is = geo.in_size(), os = geo.out_size();
  if (p.path == ConvPath::Depthwise) {
    DepthwiseArgs a;
    a.x = x;
    a.w = taps_.data();
    a.bias = ep.row_bias;
    a.y = y;
    a.channels = out_channels_;
    a.geo = geo;
    a.min = ep.min;
    a.max = ep.max;
    const int64_t block = depthwise_channel_block(isa_);
    const int64_t blocks = (out_channels_ + block - 1) / block;
    parallel_for(
        blocks,
        [&](int64_t b0, int64_t b1) {
          DepthwiseArgs chunk = a;
          chunk.scratch = p.per_slot > 0 ? scratch + p.per_slot * current_thread_slot() : nullptr;
          const int64_t c0 = b0 * block, c1 = std::min(b1 * block, out_channels_);
          depthwise_conv_f32(chunk, c0, c1, isa_);
          // Post steps on the chunk's planes while they are in cache.
          if (ep.post_count > 0) apply_post_steps(ep, y + c0 * os, os, c1 - c0, os, c0, 0);
        },
        p.threads, p.grain);
    return;
  }
  const int64_t cg = in_per_group_, mg = out_channels_ / group_, kin = cg * kernel_size_;
  if (p.path == ConvPath::Grouped) {
    GroupedConvArgs a;
    a.x = x;
    a.w = grouped_w_.data();
    a.group = group_;
    a.in_per_group = cg;
    a.out_per_group = mg;
    a.geo = geo;
    a.ep = &ep;
    a.y = y;
    const GroupedConvLayout& l = p.grouped;
    // Each slot: the group its planes hold (an int64 in the first line), then the planes.
    for (int t = 0; t < p.threads; t++) {
      const int64_t none = -1;
      std::memcpy(scratch + p.per_slot * t, &none, sizeof(none));
    }
    parallel_for(
        l.items,
        [&](int64_t i0, int64_t i1) {
          float* slot = scratch + p.per_slot * current_thread_slot();
          int64_t padded;
          std::memcpy(&padded, slot, sizeof(padded));
          grouped_conv_run(a, l, i0, i1, slot + 16, padded, isa_);
          std::memcpy(slot, &padded, sizeof(padded));
        },
        p.threads, p.grain);
    return;
  }
  for (int64_t g = 0; g < group_; g++) {
    const float* xg = x + g * cg * is;
    float* yg = y + g * mg * os;
    // The group's rows of the epilogue's row and full operands.
    Epilogue eg = ep;
    if (ep.row_bias) eg.row_bias = ep.row_bias + g * mg;
    if (ep.row_scale) eg.row_scale = ep.row_scale + g * mg;
    if (ep.residual) eg.residual = ep.residual + g * mg * ep.residual_ld;
    for (int s = 0; s < eg.post_count; s++) {
      PostStep& step = eg.post[s];
      if (step.operand_kind == PostStep::Operand::Row) step.operand += g * mg;
      if (step.operand_kind == PostStep::Operand::Full) step.operand += g * mg * step.ld;
    }
    switch (p.path) {
      case ConvPath::Winograd: {
        Epilogue registers = eg;
        registers.post_count = 0;
        winograd_conv(*winograd_, xg, geo, registers, yg, scratch + p.padded_at,
                      scratch + p.kernel_at, p.threads);
        if (eg.post_count > 0) {
          parallel_for_work(mg, os, [&](int64_t c0, int64_t c1) {
            apply_post_steps(eg, yg + c0 * os, os, c1 - c0, os, c0, 0);
          });
        }
        break;
      }
      case ConvPath::PointwiseInPlace:
        mmm_in_place(*kernel_, mg, os, kin, *packed_[static_cast<size_t>(g)], xg, is, eg, yg, os,
                     p.threads, reinterpret_cast<int64_t*>(scratch + p.offsets_at));
        break;
      case ConvPath::Pointwise: {
        StridedSource b(xg, os, kin, 1, is, kernel_->nr);
        mmm(p.mmm, *packed_[static_cast<size_t>(g)], b, eg, yg, os, scratch + p.kernel_at);
        break;
      }
      case ConvPath::InPlace:
        conv_in_place(*kernel_, mg, cg, geo, *packed_[static_cast<size_t>(g)], xg,
                      scratch + p.padded_at, eg, yg, p.threads,
                      reinterpret_cast<int64_t*>(scratch + p.offsets_at));
        break;
      case ConvPath::Im2col: {
        Im2colSource b(xg, cg, geo, kernel_->nr, scratch + p.padded_at);
        mmm(p.mmm, *packed_[static_cast<size_t>(g)], b, eg, yg, os, scratch + p.kernel_at);
        break;
      }
      case ConvPath::Depthwise:
      case ConvPath::Grouped:
        break;
    }
  }
}

}  // namespace kiln::kernels
