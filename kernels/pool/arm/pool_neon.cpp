// The pool kernels compiled for NEON (on 32-bit ARM this file alone gets -mfpu=neon, see
// CMakeLists: *_neon.cpp; it runs only when the CPU reports NEON).
#if defined(__aarch64__) || (defined(__arm__) && defined(__ARM_NEON))
#include "kernels/pool/pool_impl.h"

namespace kiln::kernels {

PoolKernels pool_kernels_neon() {
  return make_pool_kernels();
}

}  // namespace kiln::kernels
#endif
