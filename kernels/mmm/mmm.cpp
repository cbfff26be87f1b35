#include "kernels/mmm/mmm.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <vector>

#include "base/error.h"
#include "base/threading.h"
#include "kernels/aligned_buffer.h"
#include "kernels/mmm/tile_args.h"

namespace kiln::kernels {

namespace {

// B panels per block: as many as fit in kBlockBytes (a share of L2), at most kMaxBlock.
constexpr int64_t kBlockBytes = 128 << 10;
constexpr int64_t kMaxBlock = 512;
// A per-run B up to this size is packed once for all threads when they split A.
constexpr int64_t kPackAllBytes = 1 << 20;

// Keeps the first lane of a k-deep packed panel of nr lanes, in place: p[kk] = p[kk * nr] (each
// write lands at or before the read it copies; every later read lies beyond it).
void narrow_panel(float* p, int64_t k, int64_t nr) {
  for (int64_t kk = 0; kk < k; kk++) p[kk] = p[kk * nr];
}

TileArgs plain_args(float* c, int64_t ldc) {
  TileArgs t{};
  t.c = c;
  t.ldc = ldc;
  return t;
}

}  // namespace

// A partial tile for kernels without an edge tile: computed whole into a scratch tile (nr floats
// per row), then its rows x cols corner copied out. Without residual or accumulate (which read C),
// the tile's own vectorized epilogue runs on it, with the row / column operands padded to a whole
// tile; otherwise the portable apply_register_stage does (same operations in the same order either
// way). Post steps are the caller's.
[[gnu::noinline]] static void scratch_edge_tile(const MicroKernel& kernel, int64_t k,
                                                const float* ap, const float* bp, TileArgs t,
                                                const Epilogue& ep, int64_t i0, int64_t j0,
                                                int64_t rows, int64_t cols, float* c, int64_t ldc) {
  const int64_t mr = kernel.mr, nr = kernel.nr;
  alignas(64) float edge[64 * 64];
  if (ep.residual || ep.accumulate) {
    kernel.tile(k, ap, bp, plain_args(edge, nr));
    apply_register_stage(edge, nr, rows, cols, i0, j0, ep, c, ldc);
    return;
  }
  alignas(64) float rs[64], rb[64], cs[64], cb[64];
  t.c = edge;
  t.ldc = nr;
  auto pad = [](const float* src, int64_t n, int64_t width, float fill, float* dst) {
    for (int64_t i = 0; i < width; i++) dst[i] = i < n ? src[i] : fill;
    return dst;
  };
  if (t.row_scale && rows < mr) t.row_scale = pad(t.row_scale, rows, mr, 1.0f, rs);
  if (t.row_bias && rows < mr) t.row_bias = pad(t.row_bias, rows, mr, 0.0f, rb);
  if (t.col_scale && cols < nr) t.col_scale = pad(t.col_scale, cols, nr, 1.0f, cs);
  if (t.col_bias && cols < nr) t.col_bias = pad(t.col_bias, cols, nr, 0.0f, cb);
  kernel.tile(k, ap, bp, t);
  for (int64_t i = 0; i < rows; i++) {
    std::copy(edge + i * nr, edge + i * nr + cols, c + (i0 + i) * ldc + j0);
  }
}

MmmPlan plan_mmm(const MicroKernel& kernel, int64_t m, int64_t n, int64_t k, bool a_prepacked,
                 bool b_prepacked, int threads) {
  MmmPlan p;
  p.kernel = &kernel;
  p.m = m;
  p.n = n;
  p.k = k;
  p.a_prepacked = a_prepacked;
  p.b_prepacked = b_prepacked;
  if (m <= 0 || n <= 0) return p;
  const int64_t mr = kernel.mr, nr = kernel.nr;
  const int64_t a_panels = (m + mr - 1) / mr, b_panels = (n + nr - 1) / nr;
  const int64_t a_panel_size = mr * k, b_panel_size = nr * k;
  // A last B panel of one column (n = 49 = 3 x 16 + 1: a 7x7 plane): the edge tile would read a
  // whole nr-float line of the zero-padded panel per k step for one useful float, which with a
  // long k runs the panel out of L1 for every A panel. Packed per run, such a panel is narrowed
  // in place to its column (k floats, which stay in L1) and read by the kernel's in-place tile,
  // step kk at narrow[kk]. Measured on AVX2 (perf, kiln_kernels_bench mmm_packed_a 160/49/960):
  // the one-column tiles' share of the product fell from 12.9% to 8.5% (6.0% to 4.0% in another
  // run). Two to four columns gain nothing (their panel line holds several useful floats, and the
  // in-place tile loads an offset per step).
  p.narrow = kernel.in_place && !b_prepacked && nr > 1 && n % nr == 1 && k > 0;
  // B is taken in blocks of panels that fit in (a share of) L2; within a block the A panel is
  // outer: it stays in L1 while the block's B panels stream from L2, and C is written a few long
  // rows at a time. A is then read once per block.
  const int64_t b_panel_bytes = b_panel_size * 4;
  p.block = std::clamp<int64_t>(kBlockBytes / std::max<int64_t>(b_panel_bytes, 1), 1,
                                std::clamp<int64_t>(b_panels, 1, kMaxBlock));
  p.block_floats = static_cast<size_t>(p.block * b_panel_size);
  p.threads = product_threads(m, n, k, threads);
  if (p.threads > 1) {
    // Threads take contiguous ranges of B panels, or of A panels when B has too few panels to
    // share or A is much larger (late 1x1 convs): then a per-run B is packed once, up front.
    const int64_t a_bytes = a_panels * a_panel_size * 4, b_bytes = b_panels * b_panel_bytes;
    const bool split_a =
        b_panels < 2 * p.threads || (a_bytes > 2 * b_bytes && a_panels >= p.threads);
    p.split_a = split_a && !(!b_prepacked && b_bytes > kPackAllBytes);
  }
  // The scratch: pieces of whole cache lines (16 floats).
  auto lines = [](int64_t floats) { return static_cast<size_t>((floats + 15) / 16 * 16); };
  size_t at = 0;
  p.a_at = at;
  if (!a_prepacked) at += lines(a_panels * a_panel_size);
  p.b_blocks_at = at;
  if (!b_prepacked && !p.split_a)
    at += static_cast<size_t>(p.threads) * lines(p.block * b_panel_size);
  p.b_all_at = at;
  if (!b_prepacked && p.split_a) at += lines(b_panels * b_panel_size);
  p.off_at = at;
  if (p.narrow) at += lines(2 * k);  // k int64 offsets
  p.scratch_floats = at;
  return p;
}

void mmm(const MicroKernel& kernel, int64_t m, int64_t n, int64_t k, const PanelSource& a,
         const PanelSource& b, const Epilogue& ep, float* c, int64_t ldc, int threads) {
  const MmmPlan plan = plan_mmm(kernel, m, n, k, a.prepacked(), b.prepacked(), threads);
  AlignedFloats scratch(plan.scratch_floats);
  mmm(plan, a, b, ep, c, ldc, scratch.data());
}

void mmm(const MmmPlan& plan, const PanelSource& a, const PanelSource& b, const Epilogue& ep,
         float* c, int64_t ldc, float* scratch) {
  const MicroKernel& kernel = *plan.kernel;
  const int64_t m = plan.m, n = plan.n, k = plan.k;
  if (m <= 0 || n <= 0) return;
  KILN_ENSURE(a.prepacked() == plan.a_prepacked && b.prepacked() == plan.b_prepacked,
              "mmm: operands of other kinds than planned");
  const int64_t mr = kernel.mr, nr = kernel.nr;
  const int64_t a_panels = (m + mr - 1) / mr, b_panels = (n + nr - 1) / nr;
  const int64_t a_panel_size = mr * k, b_panel_size = nr * k;

  // A panels are reused for every B panel: pack them all once unless they already are.
  const float* a_packed = nullptr;
  if (!a.prepacked()) {
    float* buf = scratch + plan.a_at;
    for (int64_t p = 0; p < a_panels; p++) {
      float* dst = buf + p * a_panel_size;
      const float* got = a.panel(p, dst);
      if (got != dst) std::copy(got, got + a_panel_size, dst);
    }
    a_packed = buf;
  }
  auto a_panel = [&](int64_t p) {
    return a_packed ? a_packed + p * a_panel_size : a.panel(p, nullptr);
  };

  const TileArgs base = base_args(ep, c, ldc);
  // Post steps run on each tile right after its store, while it is in L1.
  const bool post = ep.post_count > 0;
  const bool narrow = plan.narrow;
  int64_t* narrow_off = nullptr;
  if (narrow) {
    narrow_off = reinterpret_cast<int64_t*>(scratch + plan.off_at);
    for (int64_t kk = 0; kk < k; kk++) narrow_off[kk] = kk;
  }
  // A partial tile (rows < mr or cols < nr) goes to the kernel's edge tile, straight into C;
  // kernels without one compute it whole into a scratch tile (scratch_edge_tile).
  auto tile = [&](const float* ap, const float* bp, int64_t ia, int64_t jb) {
    const int64_t i0 = ia * mr, j0 = jb * nr;
    const int64_t rows = std::min(mr, m - i0), cols = std::min(nr, n - j0);
    if (narrow && jb == b_panels - 1) {
      kernel.in_place(k, ap, bp, narrow_off, tile_args(base, i0, j0), static_cast<int>(rows),
                      static_cast<int>(cols));
    } else if (rows == mr && cols == nr) {
      kernel.tile(k, ap, bp, tile_args(base, i0, j0));
    } else if (kernel.edge) {
      kernel.edge(k, ap, bp, tile_args(base, i0, j0), static_cast<int>(rows),
                  static_cast<int>(cols));
    } else {
      scratch_edge_tile(kernel, k, ap, bp, tile_args(base, i0, j0), ep, i0, j0, rows, cols, c, ldc);
    }
    if (post) apply_post_steps(ep, c + i0 * ldc + j0, ldc, rows, cols, i0, j0);
  };

  // `b_all`: every B panel packed already; `buf`: block * b_panel_size floats for packing B
  // panels, unless B is prepacked or in b_all.
  const int64_t block = plan.block;
  const bool pack_b = !b.prepacked();
  auto run = [&](int64_t ia0, int64_t ia1, int64_t jb0, int64_t jb1, const float* b_all,
                 float* buf) {
    const float* panels[kMaxBlock];
    for (int64_t j = jb0; j < jb1; j += block) {
      const int64_t je = std::min(jb1, j + block);
      for (int64_t jb = j; jb < je; jb++) {
        if (b_all) {
          panels[jb - j] = b_all + jb * b_panel_size;
        } else if (b.prepacked()) {
          panels[jb - j] = b.panel(jb, nullptr);
        } else {
          // Kept in the block's own slot: a source may reuse whatever else it returned.
          float* dst = buf + (jb - j) * b_panel_size;
          const float* got = b.panel(jb, dst);
          if (got != dst) std::copy(got, got + b_panel_size, dst);
          if (narrow && jb == b_panels - 1) narrow_panel(dst, k, nr);
          panels[jb - j] = dst;
        }
      }
      for (int64_t ia = ia0; ia < ia1; ia++) {
        const float* ap = a_panel(ia);
        const int64_t i0 = ia * mr;
        if (i0 + mr > m) {
          for (int64_t jb = j; jb < je; jb++) tile(ap, panels[jb - j], ia, jb);
          continue;
        }
        // Full rows: only the column offsets change from tile to tile. Post steps run once
        // over the block's whole tiles of these rows (still in L1: block x mr x nr floats), not
        // per tile: a vec_math call per tile row cost as much as a GELU on it (tiny_bert).
        // Element-wise, on whole vectors either way: the same bits.
        const TileArgs row = tile_args(base, i0, 0);
        int64_t whole_end = j;
        for (int64_t jb = j; jb < je; jb++) {
          const int64_t j0 = jb * nr;
          if (j0 + nr > n) {
            tile(ap, panels[jb - j], ia, jb);
            continue;
          }
          TileArgs t = row;
          t.c += j0;
          if (t.col_scale) t.col_scale += j0;
          if (t.col_bias) t.col_bias += j0;
          if (t.residual) t.residual += j0;
          kernel.tile(k, ap, panels[jb - j], t);
          whole_end = jb + 1;
        }
        if (post && whole_end > j)
          apply_post_steps(ep, c + i0 * ldc + j * nr, ldc, mr, (whole_end - j) * nr, i0, j * nr);
      }
    }
  };

  const int threads = plan.threads;
  const size_t block_stride = (plan.block_floats + 15) / 16 * 16;
  if (threads <= 1) {
    run(0, a_panels, 0, b_panels, nullptr, pack_b ? scratch + plan.b_blocks_at : nullptr);
    return;
  }
  if (!plan.split_a) {
    // Each thread slot packs its blocks into its own part of the scratch.
    float* const blocks = pack_b ? scratch + plan.b_blocks_at : nullptr;
    parallel_for(
        b_panels,
        [&](int64_t j0, int64_t j1) {
          float* buf = blocks ? blocks + block_stride * current_thread_slot() : nullptr;
          run(0, a_panels, j0, j1, nullptr, buf);
        },
        threads, product_grain(m * nr * std::max<int64_t>(k, 1)));
    return;
  }
  // A per-run B is packed once for all threads, its panels split over them, before they split A.
  const float* b_all = nullptr;
  if (!b.prepacked()) {
    float* buf = scratch + plan.b_all_at;
    parallel_for(
        b_panels,
        [&](int64_t p0, int64_t p1) {
          for (int64_t p = p0; p < p1; p++) {
            float* dst = buf + p * b_panel_size;
            const float* got = b.panel(p, dst);
            if (got != dst) std::copy(got, got + b_panel_size, dst);
          }
        },
        threads, (kMinPieceWork + b_panel_size - 1) / std::max<int64_t>(b_panel_size, 1));
    if (narrow) narrow_panel(buf + (b_panels - 1) * b_panel_size, k, nr);
    b_all = buf;
  }
  parallel_for(
      a_panels, [&](int64_t i0, int64_t i1) { run(i0, i1, 0, b_panels, b_all, nullptr); }, threads,
      product_grain(mr * n * std::max<int64_t>(k, 1)));
}

}  // namespace kiln::kernels
