// The fused GRU step compiled for NEON (on 32-bit ARM this file alone gets -mfpu=neon, see
// CMakeLists: *_neon.cpp; it runs only when the CPU reports NEON).
#if defined(__aarch64__) || (defined(__arm__) && defined(__ARM_NEON))
#include "kernels/recurrent/gru_step_impl.h"

namespace kiln::kernels {

GruKernels gru_kernels_neon() {
  return make_gru_kernels();
}

}  // namespace kiln::kernels
#endif
