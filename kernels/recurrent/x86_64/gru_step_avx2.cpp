// The fused GRU step compiled with avx2 flags (see CMakeLists: *_avx2.cpp).
#include "kernels/recurrent/gru_step_impl.h"

namespace kiln::kernels {

GruKernels gru_kernels_avx2() {
  return make_gru_kernels();
}

}  // namespace kiln::kernels
