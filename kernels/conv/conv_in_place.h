// A 2-D convolution (depth 1, stride 1 along x) as a matrix product whose B is read in place
// (kernels/mmm/mmm_in_place.h): the micro-kernel reads each tap's output-row run straight from
// the zero-padded input planes, one offset per (channel, tap), instead of from im2col panels. An
// output row is a segment of the product's columns: tiles stop at its end, so rows of a width
// that is not a multiple of the tile width cost a partial tile each (conv_in_place_pays says when
// that is still cheaper than packing panels).
#pragma once

#include <cstdint>

#include "kernels/conv/conv_geometry.h"
#include "kernels/mmm/mmm.h"

namespace kiln::kernels {

// Whether `kernel` can run `geo` in place: it has an in-place tile, and `geo` is 2-D with stride 1
// along x.
bool conv_in_place_supported(const MicroKernel& kernel, const ConvGeometry& geo);
// Whether it also pays for a product of m rows (output channels per group): the output rows fill
// the kernel's tiles well enough (few lanes of the last tile of each row idle) that skipping the
// im2col copy wins. The copy's cost is shared by the m rows, so with few output channels a row's
// idle lanes cost less than the copy.
bool conv_in_place_pays(const MicroKernel& kernel, const ConvGeometry& geo, int64_t m);

// y[m, out_size] = epilogue(W * im2col(x)) with W packed in kernel.mr-row panels (k = channels *
// kernel size) and x `channels` planes of geo.in. `padded`: Im2colSource::padded_floats(channels,
// geo) floats of scratch (may be null when that is 0); `offsets`: scratch for k int64 values.
// Threads as mmm.
void conv_in_place(const MicroKernel& kernel, int64_t m, int64_t channels, const ConvGeometry& geo,
                   const PanelSource& w, const float* x, float* padded, const Epilogue& ep,
                   float* y, int threads, int64_t* offsets);
// The same with offsets of its own for this call (tests, benchmarks: it allocates).
void conv_in_place(const MicroKernel& kernel, int64_t m, int64_t channels, const ConvGeometry& geo,
                   const PanelSource& w, const float* x, float* padded, const Epilogue& ep,
                   float* y, int threads = 0);

}  // namespace kiln::kernels
