// The AVX-512 VNNI int8 kernels: Dot4 panels, 8 x 32 tiles, one VPDPBUSD per 4 k steps of 16
// outputs. Two variants by which side holds the unsigned bytes (A s8 weights x B u8 activations
// for convolutions; A u8 activations x B s8 weights for MatMul).
#include "kernels/quant/qdepthwise_impl.h"
#include "kernels/quant/qtiles.h"
#include "kernels/quant/x86_64/qlanes_avx512.h"
#include "kernels/quant/x86_64/qtile_x86.h"

namespace kiln::kernels {

namespace {
struct DotSignedA {  // a: s8 x4 broadcast, b: u8 x4 per lane
  static __m512i step(__m512i acc, __m512i a, __m512i b) { return _mm512_dpbusd_epi32(acc, b, a); }
};
struct DotUnsignedA {  // a: u8 x4 broadcast, b: s8 x4 per lane
  static __m512i step(__m512i acc, __m512i a, __m512i b) { return _mm512_dpbusd_epi32(acc, a, b); }
};
void tile_sa(int64_t kg, const int32_t* a, const int32_t* b, const QTileArgs& t, int rows,
             int cols) {
  q_tile_x86<QLanes512, 8, 2, DotSignedA>(kg, a, b, t, rows, cols);
}
void tile_ua(int64_t kg, const int32_t* a, const int32_t* b, const QTileArgs& t, int rows,
             int cols) {
  q_tile_x86<QLanes512, 8, 2, DotUnsignedA>(kg, a, b, t, rows, cols);
}
void row(const int32_t* acc, int64_t n, const QTileArgs& t) {
  q_row<QLanes512>(acc, n, t);
}
}  // namespace

const QMicroKernel kQAvx512VnniSignedA{
    "qmmm_i8_8x32_avx512vnni",      Isa::Avx512, QFormat::Dot4, false, 8, 32, &tile_sa, &row,
    &q_depthwise_vec<16, QLanes512>};
const QMicroKernel kQAvx512VnniUnsignedA{
    "qmmm_u8_8x32_avx512vnni",      Isa::Avx512, QFormat::Dot4, true, 8, 32, &tile_ua, &row,
    &q_depthwise_vec<16, QLanes512>};

}  // namespace kiln::kernels
