// The im2col of an 8-bit convolution input: the K x plane matrix a packed int8 product reads,
// row (ci, ky, kx) holding input channel ci's value under tap (ky, kx) for every output
// position, taps in the padding reading the zero point (adding nothing to the sums).
//
// Made from one padded, column-phase-split copy of each channel (the padding written once per
// channel instead of per tap and output row; stride_w column phases, phase q of a padded row
// holding its columns q, q + s, q + 2s, ...), so that every output row of every tap is one
// contiguous run of ow bytes, copied 16 bytes at a time: no per-row library calls, no byte-wise
// strided gathers (the stem of mobilenet_v2: 3 channels, stride 2). Exactly the bytes of the
// direct definition (tests/kernels/qim2col_test.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quant/qmmm.h"

namespace kiln::kernels {

// Bytes past the end of cols that q8_im2col may write (its 16-byte copies run over).
constexpr size_t kQIm2colSlack = 16;
// Scratch bytes q8_im2col needs for geometry g (one channel's padded copy and a padded row).
size_t q8_im2col_scratch_bytes(const QDepthwisePlane& g);
// cols[((ci * kh + ky) * kw + kx) * oh * ow + oy * ow + ox] = x[ci][iy][ix] with iy = oy *
// stride_h - pad_top + ky * dil_h, ix likewise, or `pad` outside the plane; channels planes of h
// x w bytes at x. cols holds channels * kh * kw * oh * ow bytes plus kQIm2colSlack.
void q8_im2col(const QDepthwisePlane& g, int64_t channels, const uint8_t* x, uint8_t pad,
               uint8_t* cols, void* scratch);

}  // namespace kiln::kernels
