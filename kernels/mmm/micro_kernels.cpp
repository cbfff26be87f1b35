#include "base/error.h"
#include "kernels/mmm/mmm.h"
#include "kernels/mmm/tiles.h"

namespace kiln::kernels {

const MicroKernel& micro_kernel(Isa isa) {
  static const MicroKernel generic{
      "mmm_f32_4x8_generic",    Isa::Generic, 4, 8, &tile_f32_4x8_generic, &edge_f32_4x8_generic,
      &in_place_f32_4x8_generic};
#if defined(__x86_64__) && defined(KILN_HAVE_X86_TILES)
  static const MicroKernel avx2{
      "mmm_f32_6x16_avx2",    Isa::Avx2, 6, 16, &tile_f32_6x16_avx2, &edge_f32_6x16_avx2,
      &in_place_f32_6x16_avx2};
  static const MicroKernel avx512{
      "mmm_f32_8x32_avx512",    Isa::Avx512, 8, 32, &tile_f32_8x32_avx512, &edge_f32_8x32_avx512,
      &in_place_f32_8x32_avx512};
  if (isa == Isa::Avx2) return avx2;
  if (isa == Isa::Avx512) return avx512;
#endif
#if defined(KILN_HAVE_NEON_TILES) && defined(__aarch64__)
  static const MicroKernel neon{"mmm_f32_12x8_neon", Isa::Neon, 12,     8,
                                &tile_f32_12x8_neon, nullptr,   nullptr};
  if (isa == Isa::Neon) return neon;
#elif defined(KILN_HAVE_NEON_TILES) && defined(__arm__)
  static const MicroKernel neon{"mmm_f32_8x4_neon", Isa::Neon, 8,      4,
                                &tile_f32_8x4_neon, nullptr,   nullptr};
  if (isa == Isa::Neon) return neon;
#endif
  if (isa == Isa::Generic) return generic;
  fail("no matrix-multiply kernel for ISA {} in this build", isa_name(isa));
}

const MicroKernel& default_micro_kernel() {
  static const MicroKernel& k = micro_kernel(active_isa());
  return k;
}

}  // namespace kiln::kernels
