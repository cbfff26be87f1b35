// im2col as a PanelSource: the B operand of a convolution written as a matrix product
// (rows: channel x kernel tap, columns: output positions), packed straight into panels, one
// panel at a time, so the full im2col matrix is never materialized.
//
// 2-D convolutions (depth 1) first copy the input once into a zero-padded plane per channel (the
// caller's `padded` buffer, padded_floats() long; skipped when there is no padding): a panel row is
// then one offset table lookup per tap, and a panel that lies inside one output row is a plain
// (stride 1) or strided copy per tap, without bounds checks.
#pragma once

#include <vector>

#include "kernels/conv/conv_geometry.h"
#include "kernels/mmm/mmm.h"

namespace kiln::kernels {

// The zero-padded planes of a 2-D convolution's input (depth 1): the input itself when no window
// leaves it, else `padded` (Im2colSource::padded_floats() floats) filled with a copy. Output
// position (oy, ox) and tap (ky, kx) of channel c read data[c * plane_stride + (oy * stride_y + ky
// * dilation_y) * row_stride + ox * stride_x + kx * dilation_x].
struct PaddedPlanes {
  const float* data = nullptr;
  int64_t row_stride = 0, plane_stride = 0;
};
// Whether `geo` is 2-D (depth 1, no negative padding), as PaddedPlanes need.
bool is_planar(const ConvGeometry& geo);
PaddedPlanes pad_planes(const float* x, int64_t channels, const ConvGeometry& geo, float* padded);

class Im2colSource : public PanelSource {
 public:
  // x: `channels` planes of geo.in (plane stride geo.in_size()); panels of `panel_width` output
  // positions. `padded`: padded_floats(channels, geo) floats of scratch, written here and read by
  // panel() (may be null when padded_floats() is 0); must outlive this source.
  Im2colSource(const float* x, int64_t channels, const ConvGeometry& geo, int panel_width,
               float* padded = nullptr);
  const float* panel(int64_t p, float* scratch) const override;
  int64_t k() const { return channels_ * geo_.kernel_size(); }
  // Floats of padding scratch a source of this geometry needs (0: reads x directly).
  static int64_t padded_floats(int64_t channels, const ConvGeometry& geo);

 private:
  const float* generic_panel(int64_t p, float* scratch) const;
  // The 2-D panel for a panel width N of 4, 8, 16 or 32 (vector copies), or any width (N = 0).
  template <int N>
  const float* planar_panel(int64_t p, float* scratch) const;
  const float* x_;
  int64_t channels_;
  ConvGeometry geo_;
  int width_;
  // 2-D fast path: the (padded) planes read by panel(), row and plane strides.
  bool planar_ = false;
  const float* src_ = nullptr;
  int64_t row_stride_ = 0, plane_stride_ = 0;
  // Floats readable from src_, and the offset of the last tap of the last channel.
  int64_t source_floats_ = 0, last_tap_ = 0;
};

}  // namespace kiln::kernels
