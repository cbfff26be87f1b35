// q8_im2col (kernels/quant/qim2col.h) against the direct definition, byte for byte, on random
// geometries: odd sizes, 1-D planes, strides 1-3, dilations, asymmetric padding larger than the
// kernel's reach, outputs narrower than one 16-byte copy; and nothing written past the stated
// slack. (One portable source: SSE2 on x86, whatever the ISA kernels use.)
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/quant/qim2col.h"

namespace kiln {
namespace {

std::vector<uint8_t> direct_im2col(const kernels::QDepthwisePlane& g, int64_t channels,
                                   const uint8_t* x, uint8_t pad) {
  const int64_t plane = g.oh * g.ow;
  std::vector<uint8_t> cols(static_cast<size_t>(channels * g.kh * g.kw * plane));
  for (int64_t ci = 0; ci < channels; ci++)
    for (int64_t ky = 0; ky < g.kh; ky++)
      for (int64_t kx = 0; kx < g.kw; kx++)
        for (int64_t oy = 0; oy < g.oh; oy++)
          for (int64_t ox = 0; ox < g.ow; ox++) {
            const int64_t iy = oy * g.stride_h - g.pad_top + ky * g.dil_h;
            const int64_t ix = ox * g.stride_w - g.pad_left + kx * g.dil_w;
            const bool inside = iy >= 0 && iy < g.h && ix >= 0 && ix < g.w;
            cols[static_cast<size_t>(((ci * g.kh + ky) * g.kw + kx) * plane + oy * g.ow + ox)] =
                inside ? x[(ci * g.h + iy) * g.w + ix] : pad;
          }
  return cols;
}

void check(const kernels::QDepthwisePlane& g, int64_t channels, std::mt19937& rng) {
  SCOPED_TRACE(testing::Message() << "h " << g.h << " w " << g.w << " k " << g.kh << "x" << g.kw
                                  << " stride " << g.stride_h << "," << g.stride_w << " dil "
                                  << g.dil_h << "," << g.dil_w << " pad " << g.pad_top << ","
                                  << g.pad_left << " out " << g.oh << "x" << g.ow << " channels "
                                  << channels);
  std::vector<uint8_t> x(static_cast<size_t>(channels * g.h * g.w));
  for (auto& v : x) v = static_cast<uint8_t>(rng());
  const uint8_t pad = static_cast<uint8_t>(rng());
  const std::vector<uint8_t> want = direct_im2col(g, channels, x.data(), pad);
  // The stated slack, then canaries that must survive.
  std::vector<uint8_t> cols(want.size() + kernels::kQIm2colSlack + 64, 0xEE);
  std::vector<uint8_t> scratch(kernels::q8_im2col_scratch_bytes(g));
  kernels::q8_im2col(g, channels, x.data(), pad, cols.data(), scratch.data());
  for (size_t i = 0; i < want.size(); i++) ASSERT_EQ(cols[i], want[i]) << "byte " << i;
  for (size_t i = want.size() + kernels::kQIm2colSlack; i < cols.size(); i++)
    ASSERT_EQ(cols[i], 0xEE) << "wrote past the slack at " << i;
}

TEST(KernelsQIm2col, MatchesDirectDefinitionOnRandomGeometries) {
  std::mt19937 rng(2026);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int checked = 0;
  while (checked < 600) {
    kernels::QDepthwisePlane g{};
    const bool one_d = pick(0, 5) == 0;
    g.h = one_d ? 1 : pick(1, 23);
    g.w = pick(1, 40);
    g.kh = one_d ? 1 : pick(1, 5);
    g.kw = pick(1, 5);
    g.stride_h = one_d ? 1 : pick(1, 3);
    g.stride_w = pick(1, 3);
    g.dil_h = one_d ? 1 : pick(1, 2);
    g.dil_w = pick(1, 3);
    g.pad_top = one_d ? 0 : pick(0, 3);
    g.pad_left = pick(0, 4);
    const int64_t pad_bottom = one_d ? 0 : pick(0, 3), pad_right = pick(0, 4);
    const int64_t eh = (g.kh - 1) * g.dil_h + 1, ew = (g.kw - 1) * g.dil_w + 1;
    const int64_t span_h = g.h + g.pad_top + pad_bottom - eh,
                  span_w = g.w + g.pad_left + pad_right - ew;
    if (span_h < 0 || span_w < 0) continue;
    g.oh = span_h / g.stride_h + 1;
    g.ow = span_w / g.stride_w + 1;
    check(g, pick(1, 4), rng);
    if (HasFatalFailure()) return;
    checked++;
  }
}

TEST(KernelsQIm2col, ModelShapes) {
  std::mt19937 rng(7);
  // mobilenet_v2's stem (3 channels, 3x3 stride 2, pad 1) and squeezenet's 3x3 expand.
  check({224, 224, 112, 112, 3, 3, 2, 2, 1, 1, 1, 1}, 3, rng);
  check({55, 55, 55, 55, 3, 3, 1, 1, 1, 1, 1, 1}, 16, rng);
  // A TDNN layer: 1-D, kernel 3, dilation 2.
  check({1, 98, 1, 94, 1, 3, 1, 1, 1, 2, 0, 0}, 8, rng);
}

}  // namespace
}  // namespace kiln
