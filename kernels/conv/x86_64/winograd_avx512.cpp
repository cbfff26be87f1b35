// The Winograd transforms compiled with avx512 flags (see CMakeLists: *_avx512.cpp).
#include "kernels/conv/winograd_impl.h"

namespace kiln::kernels {

WinogradIsaFns winograd_fns_avx512() {
  return {&winograd_input_body, &winograd_output_body};
}

}  // namespace kiln::kernels
