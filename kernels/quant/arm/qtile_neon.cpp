// The NEON int8 kernel: Wide16 panels (i16 pairs, zero points subtracted), 8 x 8 tiles. The
// portable loop, compiled for NEON: GCC turns its i16 x i16 -> i32 multiply-accumulates into
// widening NEON multiply-accumulates (SMLAL class). No dot-product (SDOT) kernel yet.
#include "kernels/quant/qdepthwise_channels_impl.h"
#include "kernels/quant/qdepthwise_impl.h"
#include "kernels/quant/qtile_impl.h"
#include "kernels/quant/qtiles.h"

namespace kiln::kernels {

namespace {
void tile_neon(int64_t kg, const int32_t* a, const int32_t* b, const QTileArgs& t, int rows,
               int cols) {
  q_tile_wide_portable<8, 8>(kg, a, b, t, rows, cols);
}
void row(const int32_t* acc, int64_t n, const QTileArgs& t) {
  q_row<QScalarLanes>(acc, n, t);
}
}  // namespace

const QMicroKernel kQNeonWide{"qmmm_i8_8x8_neon",
                              Isa::Neon,
                              QFormat::Wide16,
                              false,
                              8,
                              8,
                              &tile_neon,
                              &row,
                              &q_depthwise_vec<4, QScalarLanes>,
                              &q_depthwise_channels<4, QScalarLanes>,
                              4,
                              &q_gemv_portable,
                              false};

}  // namespace kiln::kernels
