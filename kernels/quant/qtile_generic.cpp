// The portable int8 kernel: Wide16 panels, 4 x 8 tiles in plain C++.
#include "kernels/quant/qdepthwise_channels_impl.h"
#include "kernels/quant/qdepthwise_impl.h"
#include "kernels/quant/qtile_impl.h"
#include "kernels/quant/qtiles.h"

namespace kiln::kernels {

namespace {
void tile_generic(int64_t kg, const int32_t* a, const int32_t* b, const QTileArgs& t, int rows,
                  int cols) {
  q_tile_wide_portable<4, 8>(kg, a, b, t, rows, cols);
}
void row(const int32_t* acc, int64_t n, const QTileArgs& t) {
  q_row<QScalarLanes>(acc, n, t);
}
}  // namespace

const QMicroKernel kQGenericWide{"qmmm_i8_4x8_generic",
                                 Isa::Generic,
                                 QFormat::Wide16,
                                 false,
                                 4,
                                 8,
                                 &tile_generic,
                                 &row,
                                 &q_depthwise_vec<4, QScalarLanes>,
                                 &q_depthwise_channels<4, QScalarLanes>,
                                 4,
                                 &q_gemv_portable,
                                 false};

}  // namespace kiln::kernels
