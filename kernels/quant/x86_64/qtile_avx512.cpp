// The AVX-512BW int8 kernel: Wide16 panels, 8 x 32 tiles, VPMADDWD + VPADDD (no saturation).
#include "kernels/quant/qdepthwise_channels_impl.h"
#include "kernels/quant/qdepthwise_impl.h"
#include "kernels/quant/qtiles.h"
#include "kernels/quant/x86_64/qlanes_avx512.h"
#include "kernels/quant/x86_64/qtile_x86.h"

namespace kiln::kernels {

namespace {
struct MaddStep {
  static __m512i step(__m512i acc, __m512i a, __m512i b) {
    return _mm512_add_epi32(acc, _mm512_madd_epi16(a, b));
  }
};
void tile(int64_t kg, const int32_t* a, const int32_t* b, const QTileArgs& t, int rows, int cols) {
  q_tile_x86<QLanes512, 8, 2, MaddStep>(kg, a, b, t, rows, cols);
}
void row(const int32_t* acc, int64_t n, const QTileArgs& t) {
  q_row<QLanes512>(acc, n, t);
}
}  // namespace

const QMicroKernel kQAvx512Wide{"qmmm_i8_8x32_avx512bw",
                                Isa::Avx512,
                                QFormat::Wide16,
                                false,
                                8,
                                32,
                                &tile,
                                &row,
                                &q_depthwise_vec<16, QLanes512>,
                                &q_depthwise_channels<16, QLanes512>,
                                16,
                                nullptr,
                                false};

}  // namespace kiln::kernels
