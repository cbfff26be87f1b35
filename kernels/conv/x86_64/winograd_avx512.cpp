// The Winograd transforms compiled with avx512 flags (see CMakeLists: *_avx512.cpp).
#include "kernels/conv/winograd_impl.h"

namespace kiln::kernels {

WinogradIsaFns winograd_fns_avx512() {
  return {&winograd_input_body, &winograd_output_body, &winograd_input_body4,
          &winograd_output_body4};
}

}  // namespace kiln::kernels
