#include "base/isa.h"

#include <cstdlib>

#include "base/error.h"

#if defined(KILN_HAVE_NEON_TILES)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

namespace kiln {

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

bool cpu_has(CpuFeature feature) {
  switch (feature) {
#if defined(__x86_64__)
    case CpuFeature::Avx512Vnni:
      return __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vl");
    case CpuFeature::AvxVnni:
      // GCC 12's __builtin_cpu_supports does not know "avxvnni": CPUID leaf 7 subleaf 1, EAX bit 4.
      {
        unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
        __asm__("cpuid" : "=a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx) : "a"(7), "c"(1));
        return (eax & (1u << 4)) != 0 && __builtin_cpu_supports("avx2");
      }
#endif
#if defined(__aarch64__) && defined(KILN_HAVE_NEON_TILES)
    case CpuFeature::NeonDotProd:
      return (getauxval(AT_HWCAP) & HWCAP_ASIMDDP) != 0;
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

}  // namespace kiln
