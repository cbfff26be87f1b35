// The AVX-512 VNNI int8 kernels: Dot4 panels, 8 x 32 tiles, one VPDPBUSD per 4 k steps of 16
// outputs. Two variants by which side holds the unsigned bytes (A s8 weights x B u8 activations
// for convolutions; A u8 activations x B s8 weights for MatMul); the k loop in inline assembly.
#include "kernels/quant/qdepthwise_channels_impl.h"
#include "kernels/quant/qdepthwise_impl.h"
#include "kernels/quant/qtiles.h"
#include "kernels/quant/x86_64/qlanes_avx512.h"
#include "kernels/quant/x86_64/qtile_x86.h"

namespace kiln::kernels {

namespace {

// The 8 x 32 sums over kg >= 1 groups of 4 k steps into acc: 16 accumulators (zmm0-15, row i in
// zmm 2i and 2i + 1), the two B vectors (zmm16-17) and the broadcast A word (zmm18), VPDPBUSD
// accumulating in place. Left to itself GCC copied every accumulator to another register in
// every k step and stored two to the stack (~60 instructions per 16 VPDPBUSD, the tile at about
// one VPDPBUSD per cycle on squeezenet1_1); the loop is therefore written in assembly, with fixed
// registers (16 read-write operands would pass asm's 30-operand limit). SignedA: A s8 (VPDPBUSD's
// signed operand, broadcast) x B u8; else A u8 x B s8.
#define KILN_Q_ROW_SA(off, c0, c1)       \
  "vpbroadcastd " #off                   \
  "(%[a]), %%zmm18\n\t"                  \
  "vpdpbusd %%zmm18, %%zmm16, %%zmm" #c0 \
  "\n\t"                                 \
  "vpdpbusd %%zmm18, %%zmm17, %%zmm" #c1 "\n\t"
#define KILN_Q_ROW_UA(off, c0, c1)       \
  "vpbroadcastd " #off                   \
  "(%[a]), %%zmm18\n\t"                  \
  "vpdpbusd %%zmm16, %%zmm18, %%zmm" #c0 \
  "\n\t"                                 \
  "vpdpbusd %%zmm17, %%zmm18, %%zmm" #c1 "\n\t"
#define KILN_Q_ZERO(r) "vpxord %%zmm" #r ", %%zmm" #r ", %%zmm" #r "\n\t"
#define KILN_Q_STORE(r, off) "vmovdqa64 %%zmm" #r ", " #off "(%[c])\n\t"
#define KILN_Q_LOOP(ROW) \
  asm volatile(KILN_Q_ZERO(0) KILN_Q_ZERO(1) KILN_Q_ZERO(2) KILN_Q_ZERO(3) KILN_Q_ZERO(4)         \
                   KILN_Q_ZERO(5) KILN_Q_ZERO(6) KILN_Q_ZERO(7) KILN_Q_ZERO(8) KILN_Q_ZERO(9)     \
                       KILN_Q_ZERO(10) KILN_Q_ZERO(11) KILN_Q_ZERO(12) KILN_Q_ZERO(13)            \
                           KILN_Q_ZERO(14) KILN_Q_ZERO(15)                                        \
               "1:\n\t"                                                                          \
               "vmovdqa64 (%[b]), %%zmm16\n\t"                                                   \
               "vmovdqa64 64(%[b]), %%zmm17\n\t" ROW(0, 0, 1) ROW(4, 2, 3) ROW(8, 4, 5)           \
                   ROW(12, 6, 7) ROW(16, 8, 9) ROW(20, 10, 11) ROW(24, 12, 13) ROW(28, 14, 15)    \
               "add $32, %[a]\n\t"                                                               \
               "add $128, %[b]\n\t"                                                              \
               "dec %[n]\n\t"                                                                    \
               "jnz 1b\n\t" KILN_Q_STORE(0, 0) KILN_Q_STORE(1, 64) KILN_Q_STORE(2, 128)          \
                   KILN_Q_STORE(3, 192) KILN_Q_STORE(4, 256) KILN_Q_STORE(5, 320)                 \
                       KILN_Q_STORE(6, 384) KILN_Q_STORE(7, 448) KILN_Q_STORE(8, 512)             \
                           KILN_Q_STORE(9, 576) KILN_Q_STORE(10, 640) KILN_Q_STORE(11, 704)       \
                               KILN_Q_STORE(12, 768) KILN_Q_STORE(13, 832)                        \
                                   KILN_Q_STORE(14, 896) KILN_Q_STORE(15, 960)                    \
               : [a] "+r"(a), [b] "+r"(b), [n] "+r"(kg)                                           \
               : [c] "r"(&acc[0][0])                                                              \
               : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",   \
                 "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", \
                 "cc", "memory")

template <bool SignedA>
[[gnu::always_inline]] inline void sums_8x32(int64_t kg, const int32_t* a, const int32_t* b,
                                             __m512i (&acc)[8][2]) {
  if constexpr (SignedA)
    KILN_Q_LOOP(KILN_Q_ROW_SA);
  else
    KILN_Q_LOOP(KILN_Q_ROW_UA);
}
#undef KILN_Q_LOOP
#undef KILN_Q_STORE
#undef KILN_Q_ZERO
#undef KILN_Q_ROW_UA
#undef KILN_Q_ROW_SA

template <bool SignedA>
void tile(int64_t kg, const int32_t* a, const int32_t* b, const QTileArgs& t, int rows, int cols) {
  alignas(64) __m512i acc[8][2];
  if (kg > 0) {
    sums_8x32<SignedA>(kg, a, b, acc);
  } else {
    for (auto& r : acc) r[0] = r[1] = _mm512_setzero_si512();
  }
  q_finish_x86<QLanes512, 8, 2>(acc, t, rows, cols);
}
void tile_sa(int64_t kg, const int32_t* a, const int32_t* b, const QTileArgs& t, int rows,
             int cols) {
  tile<true>(kg, a, b, t, rows, cols);
}
void tile_ua(int64_t kg, const int32_t* a, const int32_t* b, const QTileArgs& t, int rows,
             int cols) {
  tile<false>(kg, a, b, t, rows, cols);
}
void row(const int32_t* acc, int64_t n, const QTileArgs& t) {
  q_row<QLanes512>(acc, n, t);
}
}  // namespace

const QMicroKernel kQAvx512VnniSignedA{"qmmm_i8_8x32_avx512vnni",
                                       Isa::Avx512,
                                       QFormat::Dot4,
                                       false,
                                       8,
                                       32,
                                       &tile_sa,
                                       &row,
                                       &q_depthwise_vec<16, QLanes512>,
                                       &q_depthwise_channels<16, QLanes512>,
                                       16,
                                       nullptr,
                                       false};
const QMicroKernel kQAvx512VnniUnsignedA{"qmmm_u8_8x32_avx512vnni",
                                         Isa::Avx512,
                                         QFormat::Dot4,
                                         true,
                                         8,
                                         32,
                                         &tile_ua,
                                         &row,
                                         &q_depthwise_vec<16, QLanes512>,
                                         &q_depthwise_channels<16, QLanes512>,
                                         16,
                                         nullptr,
                                         false};

}  // namespace kiln::kernels
