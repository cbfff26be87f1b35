// The norm kernels compiled with avx2 flags (see CMakeLists: *_avx2.cpp).
#include "kernels/norm/norm_impl.h"

namespace kiln::kernels {

NormKernels norm_kernels_avx2() {
  return make_norm_kernels();
}

}  // namespace kiln::kernels
