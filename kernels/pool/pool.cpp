#include "kernels/pool/pool.h"

#include "kernels/pool/pool_impl.h"

namespace kiln::kernels {

PoolKernels pool_kernels_generic() {
  return make_pool_kernels();
}

const PoolKernels& pool_kernels(Isa isa) {
  static const PoolKernels generic = pool_kernels_generic();
#if defined(__x86_64__) && defined(KILN_HAVE_X86_TILES)
  static const PoolKernels avx2 = isa_supported(Isa::Avx2) ? pool_kernels_avx2() : generic;
  static const PoolKernels avx512 = isa_supported(Isa::Avx512) ? pool_kernels_avx512() : generic;
  if (isa == Isa::Avx512) return avx512;
  if (isa == Isa::Avx2) return avx2;
#endif
#if defined(KILN_HAVE_NEON_TILES)
  static const PoolKernels neon = isa_supported(Isa::Neon) ? pool_kernels_neon() : generic;
  if (isa == Isa::Neon) return neon;
#endif
  return generic;
}

const PoolKernels& pool_kernels() {
  static const PoolKernels& k = pool_kernels(active_isa());
  return k;
}

}  // namespace kiln::kernels
