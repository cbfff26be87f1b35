// The pool kernels compiled with avx512 flags (see CMakeLists: *_avx512.cpp).
#include "kernels/pool/pool_impl.h"

namespace kiln::kernels {

PoolKernels pool_kernels_avx512() {
  return make_pool_kernels();
}

}  // namespace kiln::kernels
