#include "kernels/mmm/mmm.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <vector>

#include "core/error.h"
#include "core/threading.h"
#include "kernels/mmm/tile_args.h"

namespace kiln::kernels {

namespace {

// A 64-byte aligned float buffer that only grows; one per thread for packing scratch. It grows
// at once to the largest size any thread has asked for (`high_water`): whichever chunks a
// worker happens to take, its buffer settles with its first use after one full run, so
// steady-state runs allocate nothing.
class Scratch {
 public:
  explicit Scratch(std::atomic<size_t>& high_water) : high_water_(high_water) {}
  ~Scratch() { std::free(data_); }
  float* get(size_t count) {
    size_t seen = high_water_.load(std::memory_order_relaxed);
    while (seen < count && !high_water_.compare_exchange_weak(seen, count)) {
    }
    if (count > size_) {
      std::free(data_);
      size_ = std::max({count, size_ * 2, high_water_.load(std::memory_order_relaxed)});
      data_ = static_cast<float*>(std::aligned_alloc(64, (size_ * sizeof(float) + 63) / 64 * 64));
      KILN_ENSURE(data_ != nullptr, "mmm: out of memory for packing scratch");
    }
    return data_;
  }

 private:
  std::atomic<size_t>& high_water_;
  float* data_ = nullptr;
  size_t size_ = 0;
};

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

// The offsets 0, 1, ..., k - 1 (B step kk of a one-column panel), from one table shared by all
// threads that only grows, under a lock, the first time a longer k asks; older tables are kept,
// so a pointer handed out stays valid. Steady-state runs allocate nothing.
const int64_t* iota_offsets(int64_t k) {
  static std::mutex mu;
  static std::vector<std::unique_ptr<int64_t[]>> tables;
  static std::atomic<const int64_t*> table{nullptr};
  static std::atomic<int64_t> size{0};
  if (size.load(std::memory_order_acquire) >= k) return table.load(std::memory_order_acquire);
  std::lock_guard<std::mutex> lock(mu);
  if (size.load(std::memory_order_relaxed) < k) {
    const int64_t n = std::max<int64_t>({k, 2 * size.load(std::memory_order_relaxed), 4096});
    auto t = std::make_unique<int64_t[]>(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; i++) t[static_cast<size_t>(i)] = i;
    // The table first, then its size: a reader that sees the size sees a table at least as long.
    table.store(t.get(), std::memory_order_release);
    size.store(n, std::memory_order_release);
    tables.push_back(std::move(t));
  }
  return table.load(std::memory_order_acquire);
}

std::atomic<size_t> g_a_high_water{0}, g_b_high_water{0}, g_b_all_high_water{0};

Scratch& a_scratch() {
  thread_local Scratch s(g_a_high_water);
  return s;
}
Scratch& b_scratch() {
  thread_local Scratch s(g_b_high_water);
  return s;
}
// B block scratch for the threads of a parallel mmm, one per thread slot (current_thread_slot),
// owned by the calling thread and lent to the threads of the job: the caller sizes them all
// before the job, so workers never allocate, however the chunks happen to be claimed in the
// warm-up runs.
std::vector<std::unique_ptr<Scratch>>& slot_scratch() {
  thread_local std::vector<std::unique_ptr<Scratch>> s;
  return s;
}
Scratch& b_all_scratch() {
  thread_local Scratch s(g_b_all_high_water);
  return s;
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
// tile; otherwise the portable apply_epilogue does (same operations in the same order either way).
[[gnu::noinline]] static void scratch_edge_tile(const MicroKernel& kernel, int64_t k,
                                                const float* ap, const float* bp, TileArgs t,
                                                const Epilogue& ep, int64_t i0, int64_t j0,
                                                int64_t rows, int64_t cols, float* c, int64_t ldc) {
  const int64_t mr = kernel.mr, nr = kernel.nr;
  alignas(64) float edge[64 * 64];
  if (ep.residual || ep.accumulate) {
    kernel.tile(k, ap, bp, plain_args(edge, nr));
    apply_epilogue(edge, nr, rows, cols, i0, j0, ep, c, ldc);
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

void apply_epilogue(const float* acc, int64_t ld_acc, int64_t rows, int64_t cols, int64_t i0,
                    int64_t j0, const Epilogue& ep, float* c, int64_t ldc) {
  bool clamp = !(std::isinf(ep.min) && ep.min < 0 && std::isinf(ep.max) && ep.max > 0);
  for (int64_t i = 0; i < rows; i++) {
    int64_t gi = i0 + i;
    float* crow = c + gi * ldc;
    for (int64_t j = 0; j < cols; j++) {
      int64_t gj = j0 + j;
      float v = acc[i * ld_acc + j];
      if (ep.row_scale) v *= ep.row_scale[gi];
      if (ep.col_scale) v *= ep.col_scale[gj];
      if (ep.row_bias) v += ep.row_bias[gi];
      if (ep.col_bias) v += ep.col_bias[gj];
      if (ep.residual) v += ep.residual[gi * ep.residual_ld + gj];
      if (ep.accumulate) v += crow[gj];
      if (ep.leaky && v < 0) v *= ep.leaky_alpha;
      if (clamp) v = v < ep.min ? ep.min : (v > ep.max ? ep.max : v);
      crow[gj] = v;
    }
  }
}

void mmm(const MicroKernel& kernel, int64_t m, int64_t n, int64_t k, const PanelSource& a,
         const PanelSource& b, const Epilogue& ep, float* c, int64_t ldc, int threads) {
  if (m <= 0 || n <= 0) return;
  const int64_t mr = kernel.mr, nr = kernel.nr;
  const int64_t a_panels = (m + mr - 1) / mr, b_panels = (n + nr - 1) / nr;
  const int64_t a_panel_size = mr * k, b_panel_size = nr * k;

  // A panels are reused for every B panel: pack them all once unless they already are.
  const float* a_packed = nullptr;
  if (!a.prepacked()) {
    float* buf = a_scratch().get(static_cast<size_t>(a_panels * a_panel_size));
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
  // A last B panel of one column (n = 49 = 3 x 16 + 1: a 7x7 plane): the edge tile would read a
  // whole nr-float line of the zero-padded panel per k step for one useful float, which with a
  // long k runs the panel out of L1 for every A panel. Packed per run, such a panel is narrowed
  // in place to its column (k floats, which stay in L1) and read by the kernel's in-place tile,
  // step kk at narrow[kk]. Measured on AVX2 (perf, kiln_kernels_bench mmm_packed_a 160/49/960):
  // the one-column tiles' share of the product fell from 12.9% to 8.5% (6.0% to 4.0% in another
  // run). Two to four columns gain nothing (their panel line holds several useful floats, and the
  // in-place tile loads an offset per step).
  const bool narrow = kernel.in_place && !b.prepacked() && nr > 1 && n % nr == 1 && k > 0;
  const int64_t* narrow_off = narrow ? iota_offsets(k) : nullptr;
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
  };

  // B is taken in blocks of panels that fit in (a share of) L2; within a block the A panel is
  // outer: it stays in L1 while the block's B panels stream from L2, and C is written a few long
  // rows at a time. A is then read once per block. `b_all`: every B panel packed already.
  const int64_t b_panel_bytes = b_panel_size * 4;
  const int64_t block = std::clamp<int64_t>(kBlockBytes / std::max<int64_t>(b_panel_bytes, 1), 1,
                                            std::clamp<int64_t>(b_panels, 1, kMaxBlock));
  // `buf`: block * b_panel_size floats for packing B panels, unless B is prepacked or in b_all.
  const bool pack_b = !b.prepacked();
  const size_t block_floats = static_cast<size_t>(block * b_panel_size);
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
        // Full rows: only the column offsets change from tile to tile.
        const TileArgs row = tile_args(base, i0, 0);
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
        }
      }
    }
  };

  threads = product_threads(m, n, k, threads);
  if (threads <= 1) {
    run(0, a_panels, 0, b_panels, nullptr, pack_b ? b_scratch().get(block_floats) : nullptr);
    return;
  }
  // Threads take contiguous ranges of B panels, or of A panels when B has too few panels to
  // share or A is much larger (late 1x1 convs): then a per-run B is packed once, up front.
  const int64_t a_bytes = a_panels * a_panel_size * 4, b_bytes = b_panels * b_panel_bytes;
  const bool split_a = b_panels < 2 * threads || (a_bytes > 2 * b_bytes && a_panels >= threads);
  if (!split_a || (pack_b && b_bytes > kPackAllBytes)) {
    auto& bufs = slot_scratch();
    while (bufs.size() < static_cast<size_t>(threads)) {
      bufs.push_back(std::make_unique<Scratch>(g_b_high_water));
    }
    if (pack_b) {
      for (int s = 0; s < threads; s++) bufs[static_cast<size_t>(s)]->get(block_floats);
    }
    parallel_for(
        b_panels,
        [&](int64_t j0, int64_t j1) {
          float* buf = nullptr;
          if (pack_b) buf = bufs[static_cast<size_t>(current_thread_slot())]->get(block_floats);
          run(0, a_panels, j0, j1, nullptr, buf);
        },
        threads, product_grain(m * nr * std::max<int64_t>(k, 1)));
    return;
  }
  // A per-run B is packed once for all threads, its panels split over them, before they split A.
  const float* b_all = nullptr;
  if (!b.prepacked()) {
    float* buf = b_all_scratch().get(static_cast<size_t>(b_panels * b_panel_size));
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
