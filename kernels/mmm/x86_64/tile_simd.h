// The body of the x86 micro-kernels, written once over a SIMD traits type (S::V a register of
// S::W floats, S::Mask a lane mask) and instantiated by one .cpp per ISA, each compiled with its
// own -m flags. Lives in an anonymous namespace so no inline function compiled for one ISA can be
// picked by the linker for another.
//
// One template computes both the full tile and every edge tile: R of the MR rows of the A panel
// and NV of the NVP vectors of the B panel, so a partial tile costs what its outputs cost (up to
// one vector of columns), and its last, partial vector is read and written with lane masks,
// straight into C.
#pragma once

#include <array>
#include <utility>

#include "kernels/epilogue_impl.h"
#include "kernels/mmm/mmm.h"

namespace kiln::kernels {
namespace {

// Where a tile reads the NR = NVP * W columns of B at each k step. A packed panel (B rows NR
// apart, 64-byte aligned, zero-padded to NR columns) or B in place (step kk's columns at
// b + off[kk]: a plain matrix or a convolution's input; unaligned, and only the tile's own
// columns may be read, so a partial last vector is loaded under a mask).
struct PanelRows {
  static constexpr bool kInPlace = false;
  const float* p;
  int64_t nr;
  const float* row() const { return p; }
  void next() { p += nr; }
};
struct InPlaceRows {
  static constexpr bool kInPlace = true;
  const float* b;
  const int64_t* off;
  const float* row() const { return b + *off; }
  void next() { off++; }
};

// Applies the epilogue of `t` (kernels/epilogue_impl.h) to R x NV accumulators (an R-row,
// NV-vector corner of a tile) and stores them. `Edge`: the last vector holds only the lanes of
// `mask` (`masked`) and is loaded and stored under it.
template <class S, int R, int NV, bool Edge>
[[gnu::always_inline]] inline void simd_store(typename S::V (&acc)[R][NV], const TileArgs& t,
                                              bool masked, typename S::Mask mask) {
  constexpr int W = S::W;
  epilogue_regs<S, R, NV>(
      acc, t,
      [&](const float* p, int j) {
        return (Edge && j == NV - 1 && masked) ? S::maskload(p, mask) : S::loadu(p);
      },
      [&](int i, int j, typename S::V v) {
        if (Edge && j == NV - 1 && masked) {
          S::maskstore(t.c + i * t.ldc + j * W, mask, v);
        } else {
          S::storeu(t.c + i * t.ldc + j * W, v);
        }
      });
}

// R rows x NV vectors of an MR x (NVP * S::W) tile, B read through `br` (PanelRows or
// InPlaceRows). `Edge`: the last vector holds only `last_lanes` (1..W) columns and is stored (and,
// from B in place, loaded) under a mask.
template <class S, int MR, int NVP, int R, int NV, bool Edge, class BRows>
inline void simd_tile(int64_t k, const float* __restrict a, BRows br, const TileArgs& args,
                      int last_lanes) {
  static_assert(R >= 1 && R <= MR && NV >= 1 && NV <= NVP);
  using V = typename S::V;
  constexpr int W = S::W;
  // Few accumulators (edge tiles of 1..2 rows) cannot hide the FMA latency: U independent sums
  // over interleaved k steps, added at the end.
  constexpr int U = R * NV <= 4 ? 2 : 1;
  V acc[R][NV], acc2[U > 1 ? R : 1][NV];
#pragma GCC unroll 16
  for (int i = 0; i < R; i++) {
#pragma GCC unroll 4
    for (int j = 0; j < NV; j++) acc[i][j] = S::zero();
  }
  if constexpr (U > 1) {
#pragma GCC unroll 16
    for (int i = 0; i < R; i++) {
#pragma GCC unroll 4
      for (int j = 0; j < NV; j++) acc2[i][j] = S::zero();
    }
  }
  const bool masked = Edge && last_lanes < W;
  const typename S::Mask mask = S::mask(Edge ? last_lanes : W);
  // B in place: each k step prefetches its row `b_ahead` floats ahead, in the column tile the
  // next calls read (the first pass over a block of B reads it from memory, one line per k step).
  // A short k makes a tile short, so the prefetch goes further (2 or 4 tiles: the 16x3025x64
  // squeeze of squeezenet1_1 ran ~11% faster at 2 than at 1); a long k keeps it at the next tile,
  // whose k lines are already half of L1 (2 tiles ahead made 32x784x192 ~15% slower).
  const int64_t b_ahead = (k >= 128 ? 1 : k >= 64 ? 2 : 4) * NVP * W;
  // One k step into the accumulators `into`.
  auto step = [&](const float* ak, const float* __restrict bk, V(&into)[R][NV]) {
    V bv[NV];
    if constexpr (BRows::kInPlace && !Edge) __builtin_prefetch(bk + b_ahead);
#pragma GCC unroll 4
    for (int j = 0; j < NV; j++) {
      if constexpr (!BRows::kInPlace) {
        bv[j] = S::load(bk + j * W);
      } else if (Edge && j == NV - 1) {
        bv[j] = masked ? S::maskload(bk + j * W, mask) : S::loadu(bk + j * W);
      } else {
        bv[j] = S::loadu(bk + j * W);
      }
    }
#pragma GCC unroll 16
    for (int i = 0; i < R; i++) {
      V av = S::set1(ak[i]);
#pragma GCC unroll 4
      for (int j = 0; j < NV; j++) into[i][j] = S::fmadd(av, bv[j], into[i][j]);
    }
  };
  int64_t kk = 0;
  // From B panels, the A panel (a model's weights, read once per run per block of B) comes from
  // L3 or memory at the first panel of each block: one prefetch per two k steps (2 x MR floats,
  // at most a line) keeps its lines kAheadA floats (64 steps of a 6-row panel) ahead in flight; at
  // the block's other panels they hit L1 (measured within noise warm, +4..8% on mmm_cold_a). A
  // prefetch past the panel's end touches the next panel, which the next row of tiles reads.
  // Below kMinDepth steps the panel is small (the whole matrix stays in cache from run to run),
  // and the extra instruction per two steps made the 16..32-deep expansions of mobilenet_v2 a few
  // % slower per node.
  // B in place: few rows of A (mmm_in_place_pays), which stay in L1.
  if constexpr (U == 1 && !BRows::kInPlace) {
    static_assert(2 * MR <= 16, "one prefetch per two k steps covers each line of A");
    constexpr int64_t kAheadA = 384, kMinDepth = 128;
    for (; k >= kMinDepth && kk + 2 <= k; kk += 2) {
      __builtin_prefetch(a + kAheadA);
      step(a, br.row(), acc);
      br.next();
      step(a + MR, br.row(), acc);
      br.next();
      a += 2 * MR;
    }
  }
  if constexpr (U > 1) {
    for (; kk + 2 <= k; kk += 2) {
      step(a, br.row(), acc);
      br.next();
      step(a + MR, br.row(), acc2);
      br.next();
      a += 2 * MR;
    }
  }
#pragma GCC unroll 2
  for (; kk < k; kk++) {
    step(a, br.row(), acc);
    br.next();
    a += MR;
  }
  if constexpr (U > 1) {
#pragma GCC unroll 16
    for (int i = 0; i < R; i++) {
#pragma GCC unroll 4
      for (int j = 0; j < NV; j++) acc[i][j] = S::add(acc[i][j], acc2[i][j]);
    }
  }
  simd_store<S, R, NV, Edge>(acc, args, masked, mask);
}

// The full MR x NVP*W tile (a TileFn body).
template <class S, int MR, int NVP>
inline void simd_full_tile(int64_t k, const float* a, const float* b, const TileArgs& t) {
  simd_tile<S, MR, NVP, MR, NVP, false>(k, a, PanelRows{b, NVP * S::W}, t, S::W);
}

// Edge tiles by (rows - 1) * NVP + vectors - 1: every rows x vectors shape of the tile.
template <class S, int MR, int NVP, class BRows>
struct SimdEdgeTable {
  using Fn = void (*)(int64_t, const float*, BRows, const TileArgs&, int);
  template <int I>
  static void entry(int64_t k, const float* a, BRows br, const TileArgs& t, int lanes) {
    simd_tile<S, MR, NVP, I / NVP + 1, I % NVP + 1, true>(k, a, br, t, lanes);
  }
  template <size_t... I>
  static constexpr std::array<Fn, MR * NVP> make(std::index_sequence<I...>) {
    return {&entry<static_cast<int>(I)>...};
  }
  static constexpr std::array<Fn, MR* NVP> fns = make(std::make_index_sequence<MR * NVP>());
};

// The last few (COLS) columns of B, e.g. the 49th pixel of a 7x7 plane: one vector per column
// holds the tile's MR rows (MR <= W), so a k step is one load of the A panel's MR values, COLS
// broadcasts of B and COLS FMAs, where a row-vector edge tile would take MR broadcasts and MR FMAs
// (each only COLS / W useful). U independent sums per column over interleaved k steps hide the
// FMA latency; they are added at the end. The few outputs get the epilogue one by one.
template <class S, int MR, int NVP, int COLS, class BRows>
void simd_column_tile(int64_t k, const float* __restrict a, BRows br, const TileArgs& t, int rows) {
  static_assert(MR <= S::W && COLS >= 1);
  using V = typename S::V;
  constexpr int W = S::W;
  constexpr int U = COLS >= 4 ? 2 : 8 / COLS;
  V acc[U][COLS];
#pragma GCC unroll 8
  for (int u = 0; u < U; u++) {
#pragma GCC unroll 8
    for (int j = 0; j < COLS; j++) acc[u][j] = S::zero();
  }
  // Steps whose W-lane load of A stays inside the panel (lanes past MR: the next steps' values,
  // multiplied into lanes that are never stored); the rest load MR lanes under a mask.
  const int64_t whole = k - (W - MR + MR - 1) / MR;
  int64_t kk = 0;
  for (; kk + U <= whole; kk += U) {
#pragma GCC unroll 8
    for (int u = 0; u < U; u++) {
      const V av = S::loadu(a + (kk + u) * MR);
      const float* bk = br.row();
      br.next();
#pragma GCC unroll 8
      for (int j = 0; j < COLS; j++) acc[u][j] = S::fmadd(av, S::set1(bk[j]), acc[u][j]);
    }
  }
  const typename S::Mask am = S::mask(MR);
  for (; kk < k; kk++) {
    const V av = S::maskload(a + kk * MR, am);
    const float* bk = br.row();
    br.next();
#pragma GCC unroll 8
    for (int j = 0; j < COLS; j++) acc[0][j] = S::fmadd(av, S::set1(bk[j]), acc[0][j]);
  }
  alignas(64) float sums[COLS][W];
#pragma GCC unroll 8
  for (int j = 0; j < COLS; j++) {
    V v = acc[0][j];
#pragma GCC unroll 8
    for (int u = 1; u < U; u++) v = S::add(v, acc[u][j]);
    S::storeu(sums[j], v);
  }
  for (int i = 0; i < rows; i++) {
    float row[1][COLS];
#pragma GCC unroll 8
    for (int j = 0; j < COLS; j++) row[0][j] = sums[j][i];
    TileArgs ti = t;
    ti.c += i * t.ldc;
    if (ti.row_scale) ti.row_scale += i;
    if (ti.row_bias) ti.row_bias += i;
    if (ti.residual) ti.residual += i * t.residual_ld;
    epilogue_regs<ScalarLanes, 1, COLS>(
        row, ti, [](const float* p, int) { return *p; }, [&](int, int j, float v) { ti.c[j] = v; });
  }
}

// Up to this many columns, an edge tile is a column tile.
constexpr int kColumnTileMax = 4;

// rows x cols (1..MR, 1..NVP*W) outputs of a tile, B read through `br`, straight into C.
template <class S, int MR, int NVP, class BRows>
inline void simd_partial_tile(int64_t k, const float* a, BRows br, const TileArgs& t, int rows,
                              int cols) {
  if constexpr (MR <= S::W) {
    using Fn = void (*)(int64_t, const float*, BRows, const TileArgs&, int);
    static constexpr std::array<Fn, kColumnTileMax> by_cols = {
        &simd_column_tile<S, MR, NVP, 1, BRows>, &simd_column_tile<S, MR, NVP, 2, BRows>,
        &simd_column_tile<S, MR, NVP, 3, BRows>, &simd_column_tile<S, MR, NVP, 4, BRows>};
    if (cols <= kColumnTileMax) {
      by_cols[cols - 1](k, a, br, t, rows);
      return;
    }
  }
  const int vectors = (cols + S::W - 1) / S::W;
  const int lanes = cols - (vectors - 1) * S::W;
  SimdEdgeTable<S, MR, NVP, BRows>::fns[(rows - 1) * NVP + vectors - 1](k, a, br, t, lanes);
}

// An EdgeTileFn body: rows x cols outputs of a tile from a packed B panel.
template <class S, int MR, int NVP>
inline void simd_edge_tile(int64_t k, const float* a, const float* b, const TileArgs& t, int rows,
                           int cols) {
  simd_partial_tile<S, MR, NVP>(k, a, PanelRows{b, NVP * S::W}, t, rows, cols);
}

// An InPlaceTileFn body: rows x cols outputs (a full tile or a partial one) with B read in place.
template <class S, int MR, int NVP>
inline void simd_in_place_tile(int64_t k, const float* a, const float* b, const int64_t* off,
                               const TileArgs& t, int rows, int cols) {
  if (rows == MR && cols == NVP * S::W) {
    simd_tile<S, MR, NVP, MR, NVP, false>(k, a, InPlaceRows{b, off}, t, S::W);
  } else {
    simd_partial_tile<S, MR, NVP>(k, a, InPlaceRows{b, off}, t, rows, cols);
  }
}

}  // namespace
}  // namespace kiln::kernels
