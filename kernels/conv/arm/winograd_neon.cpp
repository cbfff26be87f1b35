// The Winograd transforms compiled for NEON (on 32-bit ARM this file alone gets -mfpu=neon, see
// CMakeLists: *_neon.cpp; it runs only when the CPU reports NEON).
#if defined(__aarch64__) || (defined(__arm__) && defined(__ARM_NEON))
#include "kernels/conv/winograd_impl.h"

namespace kiln::kernels {

WinogradIsaFns winograd_fns_neon() {
  return {&winograd_input_body, &winograd_output_body, &winograd_input_body4,
          &winograd_output_body4};
}

}  // namespace kiln::kernels
#endif
