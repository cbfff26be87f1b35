// The fused GRU step compiled with avx512 flags (see CMakeLists: *_avx512.cpp).
#include "kernels/recurrent/gru_step_impl.h"

namespace kiln::kernels {

GruKernels gru_kernels_avx512() {
  return make_gru_kernels();
}

}  // namespace kiln::kernels
