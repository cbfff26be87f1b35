#include "kernels/conv/winograd.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "base/error.h"
#include "base/threading.h"
#include "kernels/conv/winograd_impl.h"

namespace kiln::kernels {

WinogradIsaFns winograd_fns_generic() {
  return {&winograd_input_body, &winograd_output_body, &winograd_input_body4,
          &winograd_output_body4};
}

namespace {

WinogradIsaFns fns_for(Isa isa) {
  switch (isa) {
#if defined(__x86_64__) && defined(KILN_HAVE_X86_TILES)
    case Isa::Avx512:
      return winograd_fns_avx512();
    case Isa::Avx2:
      return winograd_fns_avx2();
#endif
#if defined(KILN_HAVE_NEON_TILES)
    case Isa::Neon:
      return winograd_fns_neon();
#endif
    default:
      return winograd_fns_generic();
  }
}

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// The cut of one image's work. Tiles go in blocks of whole nr-wide panels, as many as keep the
// block's V (16 points x c x tiles) within ~128 KB (L2); output channels in sub-blocks of whole
// mr-row panels keeping M (16 points x rows x tiles) within ~128 KB as well.
struct Plan {
  int64_t tiles_y, tiles_x, tiles;
  int64_t ph, pw;
  int64_t block_tiles, blocks;  // tiles per block (whole panels), blocks per image
  int64_t sub_rows;             // output channels per GEMM sub-block (whole mr panels)
  int64_t m_panels;
  int64_t groups;  // output channel groups per block (tasks = blocks * groups)
  int threads;
};

constexpr int64_t kBlockFloats = 32768;  // V and M blocks: 128 KB each

Plan make_plan(const WinogradWeights& w, const ConvGeometry& geo, int threads) {
  const MicroKernel& k = w.kernel();
  Plan p;
  const int t = w.tile();
  const int64_t points = w.points();
  p.tiles_y = ceil_div(geo.out[1], t);
  p.tiles_x = ceil_div(geo.out[2], t);
  p.tiles = p.tiles_y * p.tiles_x;
  p.ph = t * p.tiles_y + 2;
  p.pw = t * p.tiles_x + 2;
  const int64_t c = std::max<int64_t>(w.in_channels(), 1);
  const int64_t image_panels = ceil_div(p.tiles, k.nr);
  int64_t panels = std::clamp<int64_t>(kBlockFloats / (points * c * k.nr), 1, image_panels);
  p.m_panels = ceil_div(w.out_channels(), k.mr);
  const int t_max = effective_threads(threads);
  // Work per thread of at least ~256k multiply-adds (the direct conv's count / 2.25).
  const int64_t fma = p.tiles * points * c * w.out_channels();
  p.threads = static_cast<int>(std::clamp<int64_t>(fma / 262144, 1, t_max));
  if (p.threads > 1) {
    // Enough blocks to share: at least 2 per thread when the image has the panels for it.
    panels = std::min(panels, std::max<int64_t>(1, image_panels / (2 * p.threads)));
  }
  p.block_tiles = panels * k.nr;
  p.blocks = ceil_div(p.tiles, p.block_tiles);
  p.sub_rows =
      std::clamp<int64_t>(kBlockFloats / (points * p.block_tiles) / k.mr, 1, p.m_panels) * k.mr;
  // Few blocks (small planes): split the output channels too, so every thread has work; each
  // group repeats the (cheap) input transform of its block.
  p.groups = 1;
  if (p.threads > 1 && p.blocks < 4 * p.threads) {
    p.groups = std::min<int64_t>(p.m_panels, ceil_div(4 * p.threads, p.blocks));
  }
  return p;
}

// One B panel: c x nr floats, rounded up to 16 (so every panel is 64-byte aligned).
int64_t panel_floats(int64_t c, int nr) {
  return (c * nr + 15) / 16 * 16;
}

// The 16 points' blocks of V and M are kSkew floats (one cache line) more apart than their size:
// at sizes of a multiple of 4 KB the 16 streams of a transform would otherwise all fall in the
// same L1 set (the input transform ran 3x slower on 55x55, 16 channels).
constexpr int64_t kSkew = 16;
// Floats before a thread slot's V: the index of the block V holds (64 bytes keep V aligned).
constexpr int64_t kSlotHeader = 16;

int64_t v_point_floats(int64_t panels, int64_t c, int nr) {
  return panels * panel_floats(c, nr) + kSkew;
}

int64_t v_floats(const WinogradWeights& w, const Plan& p) {
  const int nr = w.kernel().nr;
  return w.points() * v_point_floats(p.block_tiles / nr, w.in_channels(), nr);
}

}  // namespace

WinogradWeights::WinogradWeights(const float* w, int64_t m, int64_t c, const MicroKernel& kernel,
                                 int tile)
    : m_(m), c_(c), tile_(tile), kernel_(&kernel) {
  KILN_ENSURE(m >= 1 && c >= 1, "Winograd: weights need channels, got [{}, {}, 3, 3]", m, c);
  KILN_ENSURE(tile == 2 || tile == 4, "Winograd: output tiles of 2 or 4, not {}", tile);
  // U = G g Gᵀ in double, then U[ξ] as an m x c matrix per point ξ = n * row + column.
  static constexpr double G2[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  static constexpr double G4[6][3] = {{1.0 / 4, 0, 0},
                                      {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                      {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                      {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                      {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                      {0, 0, 1}};
  const int n = tile + 2, points = n * n;
  auto G = [&](int r, int x) { return tile == 2 ? G2[r][x] : G4[r][x]; };
  std::vector<float> u(static_cast<size_t>(points * m * c));
  for (int64_t o = 0; o < m; o++) {
    for (int64_t i = 0; i < c; i++) {
      const float* g = w + (o * c + i) * 9;
      double gg[6][3];  // G g
      for (int r = 0; r < n; r++)
        for (int x = 0; x < 3; x++)
          gg[r][x] = G(r, 0) * g[0 * 3 + x] + G(r, 1) * g[1 * 3 + x] + G(r, 2) * g[2 * 3 + x];
      for (int r = 0; r < n; r++)
        for (int s = 0; s < n; s++) {
          const double v = gg[r][0] * G(s, 0) + gg[r][1] * G(s, 1) + gg[r][2] * G(s, 2);
          u[static_cast<size_t>(((n * r + s) * m + o) * c + i)] = static_cast<float>(v);
        }
    }
  }
  points_.resize(static_cast<size_t>(points));
  for (int xi = 0; xi < points; xi++) {
    points_[static_cast<size_t>(xi)] = PackedMatrix(u.data() + xi * m * c, m, c, c, 1, kernel.mr);
  }
}

bool winograd_supported(const ConvGeometry& geo) {
  return geo.in[0] == 1 && geo.out[0] == 1 && geo.kernel[0] == 1 && geo.kernel[1] == 3 &&
         geo.kernel[2] == 3 && geo.stride[1] == 1 && geo.stride[2] == 1 && geo.dilation[1] == 1 &&
         geo.dilation[2] == 1 && geo.pad[0] == 0 && geo.pad[1] >= 0 && geo.pad[2] >= 0 &&
         geo.out[1] >= 1 && geo.out[2] >= 1;
}

bool winograd_pays(const MicroKernel& kernel, int64_t m, int64_t c, const ConvGeometry& geo) {
  (void)kernel;
  if (!winograd_supported(geo)) return false;
  // Below these the GEMM's k (= c) is too short for the micro-kernel and the transforms dominate;
  // tiny planes waste the partial tiles.
  if (c < 8 || m < 16 || geo.out[1] * geo.out[2] < 36) return false;
  // Each transformed weight (36 per 3x3 filter, 4x the direct conv's bytes) is used once per
  // 4x4 output tile. On small planes with many channels the transformed weights no longer fit
  // in cache and are streamed from memory at ~1 multiply-add per byte: a 7x7 plane of 512 x 512
  // channels (ResNet's last stage: 37.7 MB of transformed weights for 4 tiles) ran at 58 GF/s
  // where the direct product, 12 uses per weight byte, is compute-bound. Winograd then needs at
  // least 16 tiles (a 13x13 plane and up).
  const int64_t tiles = ceil_div(geo.out[1], 4) * ceil_div(geo.out[2], 4);
  const int64_t transformed_bytes = 36 * m * c * 4;
  return transformed_bytes <= (int64_t{1} << 20) || tiles >= 16;
}

int64_t winograd_padded_floats(int64_t c, const ConvGeometry& geo, int tile) {
  const int64_t ph = tile * ceil_div(geo.out[1], tile) + 2;
  const int64_t pw = tile * ceil_div(geo.out[2], tile) + 2;
  // + slack: the vector input transform reads up to 4 vectors + 4 floats past a row's patches.
  return c * ph * pw + 4 * 16 + 64;
}

int winograd_threads(const WinogradWeights& w, const ConvGeometry& geo, int threads) {
  return make_plan(w, geo, threads).threads;
}

int64_t winograd_thread_floats(const WinogradWeights& w, const ConvGeometry& geo, int threads) {
  const Plan p = make_plan(w, geo, threads);
  // + slack: the vector output transform reads up to a vector past a row of M.
  return kSlotHeader + v_floats(w, p) + w.points() * (p.sub_rows * p.block_tiles + kSkew) + 64;
}

int64_t winograd_scratch_floats(const WinogradWeights& w, const ConvGeometry& geo, int threads) {
  const Plan p = make_plan(w, geo, threads);
  return p.threads * winograd_thread_floats(w, geo, threads) + 16;
}

void winograd_conv(const WinogradWeights& w, const float* x, const ConvGeometry& geo,
                   const Epilogue& ep, float* y, float* padded, float* scratch_base, int threads) {
  KILN_ENSURE(winograd_supported(geo), "Winograd: not a 2-D 3x3 stride-1 conv");
  KILN_ENSURE(!ep.row_scale && !ep.col_scale && !ep.col_bias && !ep.accumulate && !ep.leaky &&
                  !ep.residual_last,
              "Winograd: only bias, residual and clamp epilogues (residual first)");
  const MicroKernel& k = w.kernel();
  const Plan p = make_plan(w, geo, threads);
  const int64_t c = w.in_channels(), m = w.out_channels();
  const int64_t ih = geo.in[1], iw = geo.in[2];
  const int64_t pt = geo.pad[1], pl = geo.pad[2];
  const int64_t plane = p.ph * p.pw;
  const int64_t per_thread = winograd_thread_floats(w, geo, threads);
  // 64-byte aligned panels (winograd_scratch_floats leaves 16 floats for the shift).
  float* const scratch =
      reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(scratch_base) + 63) / 64 * 64);
  const int64_t none = -1;  // no slot's V holds a block yet
  for (int t = 0; t < p.threads; t++) std::memcpy(scratch + per_thread * t, &none, sizeof(none));

  // 1. The zero-padded planes: input pixel (iy, ix) at (iy + pt, ix + pl).
  parallel_for(
      c,
      [&](int64_t c0, int64_t c1) {
        for (int64_t ci = c0; ci < c1; ci++) {
          float* dst = padded + ci * plane;
          const float* src = x + ci * ih * iw;
          for (int64_t py = 0; py < p.ph; py++) {
            float* row = dst + py * p.pw;
            const int64_t iy = py - pt;
            if (iy < 0 || iy >= ih) {
              std::fill(row, row + p.pw, 0.f);
              continue;
            }
            const int64_t n = std::clamp<int64_t>(p.pw - pl, 0, iw);
            std::fill(row, row + std::min(pl, p.pw), 0.f);
            std::memcpy(row + pl, src + iy * iw, static_cast<size_t>(n) * sizeof(float));
            std::fill(row + pl + n, row + p.pw, 0.f);
          }
        }
      },
      // A thread per kMinParallelWork floats at most: small planes copy inline.
      static_cast<int>(std::clamp<int64_t>(c * plane / kMinParallelWork, 1, p.threads)),
      std::max<int64_t>(1, kMinPieceWork / plane));

  const WinogradIsaFns fns = fns_for(k.isa);
  WinogradOut out;
  out.bias = ep.row_bias;
  out.residual = ep.residual;
  out.residual_ld = ep.residual_ld;
  out.y = y;
  out.oh = geo.out[1];
  out.ow = geo.out[2];
  out.min = ep.min;
  out.max = ep.max;
  out.clamp = true;

  parallel_for(
      p.blocks * p.groups,
      [&](int64_t task0, int64_t task1) {
        // The slot's block header: which block its V holds (kept across the pieces of the job a
        // thread runs, so the output channel groups of one block share one input transform).
        float* const slot = scratch + per_thread * current_thread_slot();
        float* v = slot + kSlotHeader;
        float* mbuf = v + v_floats(w, p);
        int64_t done_block;
        std::memcpy(&done_block, slot, sizeof(done_block));
        for (int64_t task = task0; task < task1; task++) {
          const int64_t blk = task / p.groups, grp = task % p.groups;
          WinogradBlock b;
          b.padded = padded;
          b.c = c;
          b.pw = p.pw;
          b.plane = plane;
          b.tiles_x = p.tiles_x;
          b.tiles = p.tiles;
          b.t0 = blk * p.block_tiles;
          b.t1 = std::min(p.tiles, b.t0 + p.block_tiles);
          b.nr = k.nr;
          b.panel_floats = panel_floats(c, k.nr);
          const int64_t panels = ceil_div(b.t1 - b.t0, k.nr);
          const int64_t vps = v_point_floats(panels, c, k.nr);  // V point stride
          b.point_floats = vps;
          if (blk != done_block) {
            (w.tile() == 2 ? fns.input : fns.input4)(b, v);
            done_block = blk;
            std::memcpy(slot, &done_block, sizeof(done_block));
          }
          const int64_t ldm = panels * k.nr;
          // A last panel at most half full (13x13: 16 tiles in a 32-wide AVX-512 panel) is
          // multiplied only over its vectors that hold tiles (the edge tile, all its rows): the
          // full tile would spend half its multiply-adds on the zero lanes.
          // Every micro-kernel's panel is two vectors wide.
          const int64_t last_cols = (b.t1 - b.t0) - (panels - 1) * k.nr;
          const int64_t narrow_cols = k.nr / 2;
          const int64_t narrow_panel =
              k.edge != nullptr && last_cols <= narrow_cols ? panels - 1 : -1;
          const int64_t mps = p.sub_rows * ldm + kSkew;  // M point stride
          // Output channel panels split evenly over the groups (43 panels in 8: 5 or 6 each).
          const int64_t gp0 = grp * p.m_panels / p.groups;
          const int64_t gp1 = (grp + 1) * p.m_panels / p.groups;
          const int64_t sub_panels = p.sub_rows / k.mr;
          for (int64_t sp0 = gp0; sp0 < gp1; sp0 += sub_panels) {
            const int64_t sp1 = std::min(gp1, sp0 + sub_panels);
            for (int xi = 0; xi < w.points(); xi++) {
              const PackedMatrix& u = w.point(xi);
              for (int64_t ap = sp0; ap < sp1; ap++) {
                const float* a = u.panel(ap, nullptr);
                for (int64_t bp = 0; bp < panels; bp++) {
                  TileArgs args{};
                  args.c = mbuf + xi * mps + (ap - sp0) * k.mr * ldm + bp * k.nr;
                  args.ldc = ldm;
                  args.clamp = false;
                  args.min = -std::numeric_limits<float>::infinity();
                  args.max = std::numeric_limits<float>::infinity();
                  const float* vp = v + xi * vps + bp * b.panel_floats;
                  if (bp == narrow_panel) {
                    k.edge(c, a, vp, args, k.mr, static_cast<int>(narrow_cols));
                  } else {
                    k.tile(c, a, vp, args);
                  }
                }
              }
            }
            (w.tile() == 2 ? fns.output : fns.output4)(b, mbuf, ldm, mps, sp0 * k.mr,
                                                       std::min(m, sp1 * k.mr), out);
          }
        }
      },
      p.threads, 1);
}

}  // namespace kiln::kernels
