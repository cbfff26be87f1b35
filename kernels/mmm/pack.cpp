#include <cstdlib>
#include <cstring>

#include "base/error.h"
#include "kernels/mmm/mmm.h"

namespace kiln::kernels {

namespace {

// Lanes contiguous, panel width a constant: each row copy is a few inlined moves instead of a
// memcpy call (which costs more than copying 16 floats).
template <int W>
void pack_rows(const float* __restrict src, int64_t k, int64_t stride_k, float* __restrict dst) {
  for (int64_t kk = 0; kk < k; kk++) {
    std::memcpy(dst + kk * W, src + kk * stride_k, W * sizeof(float));
  }
}

// Lanes strided (A panels of a row-major matrix: a transpose), full width a constant: the lane
// loop unrolls into W loads and stores per kk.
template <int W>
void gather_rows(const float* __restrict src, int64_t k, int64_t stride_lane, int64_t stride_k,
                 float* __restrict dst) {
  for (int64_t kk = 0; kk < k; kk++) {
#pragma GCC unroll 16
    for (int i = 0; i < W; i++) dst[kk * W + i] = src[i * stride_lane + kk * stride_k];
  }
}

}  // namespace

void pack_panel(const float* src, int64_t width, int64_t panel_width, int64_t k,
                int64_t stride_lane, int64_t stride_k, float* dst) {
  if (stride_lane == 1 && width == panel_width) {
    // Lanes contiguous (B panels of a row-major matrix): one row copy per kk.
    switch (panel_width) {
      case 8:
        return pack_rows<8>(src, k, stride_k, dst);
      case 16:
        return pack_rows<16>(src, k, stride_k, dst);
      case 32:
        return pack_rows<32>(src, k, stride_k, dst);
      default:
        break;
    }
    for (int64_t kk = 0; kk < k; kk++) {
      std::memcpy(dst + kk * panel_width, src + kk * stride_k,
                  static_cast<size_t>(panel_width) * sizeof(float));
    }
    return;
  }
  if (width == panel_width) {
    switch (panel_width) {
      case 4:
        return gather_rows<4>(src, k, stride_lane, stride_k, dst);
      case 6:
        return gather_rows<6>(src, k, stride_lane, stride_k, dst);
      case 8:
        return gather_rows<8>(src, k, stride_lane, stride_k, dst);
      case 12:
        return gather_rows<12>(src, k, stride_lane, stride_k, dst);
      default:
        break;
    }
  }
  for (int64_t kk = 0; kk < k; kk++) {
    float* d = dst + kk * panel_width;
    const float* s = src + kk * stride_k;
    int64_t i = 0;
    for (; i < width; i++) d[i] = s[i * stride_lane];
    for (; i < panel_width; i++) d[i] = 0.0f;
  }
}

void PackedMatrix::Free::operator()(float* p) const {
  std::free(p);
}

PackedMatrix::PackedMatrix(const float* src, int64_t lanes, int64_t k, int64_t stride_lane,
                           int64_t stride_k, int panel_width)
    : lanes_(lanes), k_(k), width_(panel_width) {
  KILN_ENSURE(lanes >= 0 && k >= 0 && panel_width > 0, "PackedMatrix: bad sizes {} x {} / {}",
              lanes, k, panel_width);
  int64_t panels = (lanes + panel_width - 1) / panel_width;
  count_ = static_cast<size_t>(panels * panel_width * k);
  size_t bytes = (count_ * sizeof(float) + 63) / 64 * 64;
  data_.reset(static_cast<float*>(std::aligned_alloc(64, bytes == 0 ? 64 : bytes)));
  KILN_ENSURE(data_ != nullptr, "PackedMatrix: out of memory ({} bytes)", bytes);
  for (int64_t p = 0; p < panels; p++) {
    int64_t l0 = p * panel_width;
    int64_t w = lanes - l0 < panel_width ? lanes - l0 : panel_width;
    pack_panel(src + l0 * stride_lane, w, panel_width, k, stride_lane, stride_k,
               data_.get() + p * panel_width * k);
  }
}

const float* PackedMatrix::panel(int64_t p, float*) const {
  return data_.get() + p * width_ * k_;
}

const float* StridedSource::panel(int64_t p, float* scratch) const {
  int64_t l0 = p * width_;
  int64_t w = lanes_ - l0 < width_ ? lanes_ - l0 : width_;
  pack_panel(src_ + l0 * sl_, w, width_, k_, sl_, sk_, scratch);
  return scratch;
}

}  // namespace kiln::kernels
