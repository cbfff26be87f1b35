#include "kernels/recurrent/lstm_step.h"

#include "kernels/recurrent/lstm_step_impl.h"

namespace kiln::kernels {

LstmKernels lstm_kernels_generic() {
  return make_lstm_kernels();
}

const LstmKernels& lstm_kernels(Isa isa) {
  static const LstmKernels generic = lstm_kernels_generic();
#if defined(__x86_64__) && defined(KILN_HAVE_X86_TILES)
  static const LstmKernels avx2 = isa_supported(Isa::Avx2) ? lstm_kernels_avx2() : generic;
  static const LstmKernels avx512 = isa_supported(Isa::Avx512) ? lstm_kernels_avx512() : generic;
  if (isa == Isa::Avx512) return avx512;
  if (isa == Isa::Avx2) return avx2;
#endif
#if defined(KILN_HAVE_NEON_TILES)
  static const LstmKernels neon = isa_supported(Isa::Neon) ? lstm_kernels_neon() : generic;
  if (isa == Isa::Neon) return neon;
#endif
  return generic;
}

const LstmKernels& lstm_kernels() {
  static const LstmKernels& k = lstm_kernels(active_isa());
  return k;
}

int64_t lstm_gate_row(int64_t col, int64_t hidden, int64_t block) {
  const int64_t b = col / (4 * block), q = col / block % 4, u = b * block + col % block;
  return u < hidden ? q * hidden + u : -1;
}

void pack_lstm_r(const float* r, int64_t hidden, int64_t block, float* dst) {
  const int64_t cols = 4 * block;
  for (int64_t b = 0; b < lstm_blocks(hidden, block); b++) {
    float* panel = dst + b * hidden * cols;
    for (int64_t i = 0; i < cols; i++) {
      const int64_t row = lstm_gate_row(b * cols + i, hidden, block);
      for (int64_t j = 0; j < hidden; j++) {
        panel[j * cols + i] = row < 0 ? 0.0f : r[row * hidden + j];
      }
    }
  }
}

}  // namespace kiln::kernels
