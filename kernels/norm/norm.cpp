#include "kernels/norm/norm.h"

#include "kernels/norm/norm_impl.h"

namespace kiln::kernels {

NormKernels norm_kernels_generic() {
  return make_norm_kernels();
}

const NormKernels& norm_kernels(Isa isa) {
  static const NormKernels generic = norm_kernels_generic();
#if defined(__x86_64__) && defined(KILN_HAVE_X86_TILES)
  static const NormKernels avx2 = isa_supported(Isa::Avx2) ? norm_kernels_avx2() : generic;
  static const NormKernels avx512 = isa_supported(Isa::Avx512) ? norm_kernels_avx512() : generic;
  if (isa == Isa::Avx512) return avx512;
  if (isa == Isa::Avx2) return avx2;
#endif
#if defined(KILN_HAVE_NEON_TILES)
  static const NormKernels neon = isa_supported(Isa::Neon) ? norm_kernels_neon() : generic;
  if (isa == Isa::Neon) return neon;
#endif
  return generic;
}

const NormKernels& norm_kernels() {
  static const NormKernels& k = norm_kernels(active_isa());
  return k;
}

}  // namespace kiln::kernels
