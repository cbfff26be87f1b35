// The fused LSTM step compiled with avx2 flags (see CMakeLists: *_avx2.cpp).
#include "kernels/recurrent/lstm_step_impl.h"

namespace kiln::kernels {

LstmKernels lstm_kernels_avx2() {
  return make_lstm_kernels();
}

}  // namespace kiln::kernels
