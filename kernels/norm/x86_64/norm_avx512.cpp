// The norm kernels compiled with avx512 flags (see CMakeLists: *_avx512.cpp).
#include "kernels/norm/norm_impl.h"

namespace kiln::kernels {

NormKernels norm_kernels_avx512() {
  return make_norm_kernels();
}

}  // namespace kiln::kernels
