// Portable micro-kernel: 4 rows x 8 columns in plain C++ (the compiler vectorizes what the
// baseline ISA allows). The reference for the tile contract and the fallback on any CPU. Edge
// tiles compute R rows (a template parameter, so the loops keep constant bounds) over all 8
// columns of the zero-padded B panel, and store the first `cols`.
#include <array>

#include "kernels/epilogue_impl.h"
#include "kernels/mmm/tiles.h"

namespace kiln::kernels {
namespace {

constexpr int MR = 4, NR = 8;

// Applies the epilogue to the top-left R x cols accumulators and stores them.
template <int R>
void generic_store(float (&acc)[R][NR], const TileArgs& t, int cols) {
  epilogue_regs<ScalarLanes, R, NR>(
      acc, t, [&](const float* p, int j) { return j < cols ? *p : 0.0f; },
      [&](int i, int j, float v) {
        if (j < cols) t.c[i * t.ldc + j] = v;
      });
}

template <int R>
void generic_tile(int64_t k, const float* __restrict a, const float* __restrict b,
                  const TileArgs& t, int cols) {
  float acc[R][NR] = {};
  for (int64_t kk = 0; kk < k; kk++) {
    for (int i = 0; i < R; i++) {
      for (int j = 0; j < NR; j++) acc[i][j] += a[i] * b[j];
    }
    a += MR;
    b += NR;
  }
  generic_store<R>(acc, t, cols);
}

// B in place: step kk's columns at b + off[kk]; only the first `cols` are read (the full width
// when cols == NR, a constant bound the compiler vectorizes).
template <int R>
void generic_in_place_tile(int64_t k, const float* __restrict a, const float* __restrict b,
                           const int64_t* off, const TileArgs& t, int cols) {
  float acc[R][NR] = {};
  for (int64_t kk = 0; kk < k; kk++) {
    const float* bk = b + off[kk];
    if (cols == NR) {
      for (int i = 0; i < R; i++) {
        for (int j = 0; j < NR; j++) acc[i][j] += a[i] * bk[j];
      }
    } else {
      for (int i = 0; i < R; i++) {
        for (int j = 0; j < cols; j++) acc[i][j] += a[i] * bk[j];
      }
    }
    a += MR;
  }
  generic_store<R>(acc, t, cols);
}

}  // namespace

void tile_f32_4x8_generic(int64_t k, const float* a, const float* b, const TileArgs& t) {
  generic_tile<MR>(k, a, b, t, NR);
}

void edge_f32_4x8_generic(int64_t k, const float* a, const float* b, const TileArgs& t, int rows,
                          int cols) {
  using Fn = void (*)(int64_t, const float*, const float*, const TileArgs&, int);
  static constexpr std::array<Fn, MR> by_rows = {&generic_tile<1>, &generic_tile<2>,
                                                 &generic_tile<3>, &generic_tile<4>};
  by_rows[rows - 1](k, a, b, t, cols);
}

void in_place_f32_4x8_generic(int64_t k, const float* a, const float* b, const int64_t* off,
                              const TileArgs& t, int rows, int cols) {
  using Fn = void (*)(int64_t, const float*, const float*, const int64_t*, const TileArgs&, int);
  static constexpr std::array<Fn, MR> by_rows = {
      &generic_in_place_tile<1>, &generic_in_place_tile<2>, &generic_in_place_tile<3>,
      &generic_in_place_tile<4>};
  by_rows[rows - 1](k, a, b, off, t, cols);
}

}  // namespace kiln::kernels
