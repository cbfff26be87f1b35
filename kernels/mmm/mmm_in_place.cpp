#include "kernels/mmm/mmm_in_place.h"

#include <algorithm>
#include <vector>

#include "base/error.h"
#include "base/threading.h"
#include "kernels/mmm/tile_args.h"

namespace kiln::kernels {

namespace {

// Column tiles per block: as many as keep the block's part of B within kBlockBytes (a share of
// L2). Within a block the A panel is outer: it stays in L1 while the block's B columns stream from
// L2 past it, and C is written a few rows of the block's width at a time (as mmm does with packed
// panels). B is read from memory once, by the block's first A panel.
constexpr int64_t kBlockBytes = 128 << 10;

}  // namespace

bool mmm_in_place_pays(const MicroKernel& kernel, int64_t m, int64_t k) {
  constexpr int64_t kMaxPanels = 6, kMaxDepth = 192;
  return kernel.in_place != nullptr && m <= kMaxPanels * kernel.mr && k <= kMaxDepth;
}

void mmm_in_place(const MicroKernel& kernel, int64_t m, int64_t n, int64_t k, const PanelSource& a,
                  const InPlaceB& b, const Epilogue& ep, float* c, int64_t ldc, int threads) {
  if (m <= 0 || n <= 0) return;
  KILN_ENSURE(kernel.in_place != nullptr, "mmm_in_place: kernel {} reads B only from panels",
              kernel.name);
  KILN_ENSURE(a.prepacked(), "mmm_in_place: A must be prepacked");
  KILN_ENSURE(b.segment > 0 && n % b.segment == 0, "mmm_in_place: {} columns in segments of {}", n,
              b.segment);
  const int64_t mr = kernel.mr, nr = kernel.nr;
  const int64_t a_panels = (m + mr - 1) / mr;
  const int64_t per_segment = (b.segment + nr - 1) / nr;
  const int64_t tiles = n / b.segment * per_segment;
  const int64_t block =
      std::clamp<int64_t>(kBlockBytes / std::max<int64_t>(nr * k * 4, 1), 1, tiles);
  const TileArgs base = base_args(ep, c, ldc);
  const InPlaceTileFn tile = kernel.in_place;
  const bool post = ep.post_count > 0;

  auto run = [&](int64_t ia0, int64_t ia1, int64_t t0, int64_t t1) {
    for (int64_t tb = t0; tb < t1; tb += block) {
      const int64_t te = std::min(t1, tb + block);
      for (int64_t ia = ia0; ia < ia1; ia++) {
        const float* ap = a.panel(ia, nullptr);
        const int64_t i0 = ia * mr;
        const int rows = static_cast<int>(std::min(mr, m - i0));
        const TileArgs row = tile_args(base, i0, 0);
        for (int64_t t = tb; t < te; t++) {
          const int64_t s = t / per_segment, x0 = t % per_segment * nr;
          const int cols = static_cast<int>(std::min(nr, b.segment - x0));
          const int64_t j0 = s * b.segment + x0;
          TileArgs ta = row;
          ta.c += j0;
          if (ta.col_scale) ta.col_scale += j0;
          if (ta.col_bias) ta.col_bias += j0;
          if (ta.residual) ta.residual += j0;
          tile(k, ap, b.b + s * b.segment_stride + x0, b.off, ta, rows, cols);
          if (post) apply_post_steps(ep, ta.c, ldc, rows, cols, i0, j0);
        }
      }
    }
  };

  threads = product_threads(m, n, k, threads);
  if (threads <= 1) {
    run(0, a_panels, 0, tiles);
    return;
  }
  // Threads take contiguous ranges of column tiles (each reads its own part of B), or of A
  // panels when there are too few column tiles to share evenly (7x7 planes).
  const int64_t kd = std::max<int64_t>(k, 1);
  if (tiles >= 4 * threads || a_panels < 2 * threads) {
    parallel_for(
        tiles, [&](int64_t t0, int64_t t1) { run(0, a_panels, t0, t1); }, threads,
        product_grain(m * nr * kd));
  } else {
    parallel_for(
        a_panels, [&](int64_t i0, int64_t i1) { run(i0, i1, 0, tiles); }, threads,
        product_grain(mr * n * kd));
  }
}

void mmm_in_place(const MicroKernel& kernel, int64_t m, int64_t n, int64_t k, const PanelSource& a,
                  const float* b, int64_t ldb, const Epilogue& ep, float* c, int64_t ldc,
                  int threads, int64_t* offsets) {
  for (int64_t kk = 0; kk < k; kk++) offsets[kk] = kk * ldb;
  InPlaceB in_place;
  in_place.b = b;
  in_place.off = offsets;
  in_place.segment = n;
  mmm_in_place(kernel, m, n, k, a, in_place, ep, c, ldc, threads);
}

void mmm_in_place(const MicroKernel& kernel, int64_t m, int64_t n, int64_t k, const PanelSource& a,
                  const float* b, int64_t ldb, const Epilogue& ep, float* c, int64_t ldc,
                  int threads) {
  std::vector<int64_t> offsets(static_cast<size_t>(std::max<int64_t>(k, 1)));
  mmm_in_place(kernel, m, n, k, a, b, ldb, ep, c, ldc, threads, offsets.data());
}

}  // namespace kiln::kernels
