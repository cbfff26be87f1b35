// The pool kernels compiled with avx2 flags (see CMakeLists: *_avx2.cpp).
#include "kernels/pool/pool_impl.h"

namespace kiln::kernels {

PoolKernels pool_kernels_avx2() {
  return make_pool_kernels();
}

}  // namespace kiln::kernels
