#include <cstdlib>
#include "core/error.h"

#if defined(KILN_HAVE_NEON_TILES)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

#include "kernels/mmm/mmm.h"
#include "kernels/mmm/tiles.h"

namespace kiln::kernels {

std::string isa_name(Isa isa) {
  switch (isa) {
    case Isa::Generic:
      return "generic";
    case Isa::Avx2:
      return "avx2";
    case Isa::Avx512:
      return "avx512";
    case Isa::Neon:
      return "neon";
  }
  return "?";
}

bool isa_supported(Isa isa) {
  switch (isa) {
    case Isa::Generic:
      return true;
#if defined(__x86_64__) && defined(KILN_HAVE_X86_TILES)
    case Isa::Avx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case Isa::Avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
#endif
#if defined(KILN_HAVE_NEON_TILES) && defined(__aarch64__)
    case Isa::Neon:  // Advanced SIMD: part of the AArch64 base ISA, reported as "asimd".
      return (getauxval(AT_HWCAP) & HWCAP_ASIMD) != 0;
#elif defined(KILN_HAVE_NEON_TILES) && defined(__arm__)
    case Isa::Neon:  // Optional on ARMv7: the kernel says whether this core has it.
      return (getauxval(AT_HWCAP) & HWCAP_NEON) != 0;
#endif
    default:
      return false;
  }
}

std::vector<Isa> supported_isas() {
  std::vector<Isa> out;
  for (Isa isa : {Isa::Generic, Isa::Avx2, Isa::Avx512, Isa::Neon}) {
    if (isa_supported(isa)) out.push_back(isa);
  }
  return out;
}

namespace {
Isa choose_isa() {
  if (const char* env = std::getenv("KILN_ISA"); env && *env) {
    std::string want = env;
    for (Isa isa : {Isa::Generic, Isa::Avx2, Isa::Avx512, Isa::Neon}) {
      if (isa_name(isa) != want) continue;
      if (!isa_supported(isa)) {
        fail("KILN_ISA={}: this CPU or build cannot run it", want);
      }
      return isa;
    }
    fail("KILN_ISA={}: unknown ISA (generic, avx2, avx512, neon)", want);
  }
  auto all = supported_isas();
  return all.back();
}
}  // namespace

Isa active_isa() {
  static const Isa isa = choose_isa();
  return isa;
}

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
