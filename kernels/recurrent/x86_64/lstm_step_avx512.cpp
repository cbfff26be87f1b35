// The fused LSTM step compiled with avx512 flags (see CMakeLists: *_avx512.cpp).
#include "kernels/recurrent/lstm_step_impl.h"

namespace kiln::kernels {

LstmKernels lstm_kernels_avx512() {
  return make_lstm_kernels();
}

}  // namespace kiln::kernels
