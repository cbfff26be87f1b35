#include "kernels/recurrent/gru_step.h"

#include "kernels/recurrent/gru_step_impl.h"

namespace kiln::kernels {

GruKernels gru_kernels_generic() {
  return make_gru_kernels();
}

const GruKernels& gru_kernels(Isa isa) {
  static const GruKernels generic = gru_kernels_generic();
#if defined(__x86_64__) && defined(KILN_HAVE_X86_TILES)
  static const GruKernels avx2 = isa_supported(Isa::Avx2) ? gru_kernels_avx2() : generic;
  static const GruKernels avx512 = isa_supported(Isa::Avx512) ? gru_kernels_avx512() : generic;
  if (isa == Isa::Avx512) return avx512;
  if (isa == Isa::Avx2) return avx2;
#endif
#if defined(KILN_HAVE_NEON_TILES)
  static const GruKernels neon = isa_supported(Isa::Neon) ? gru_kernels_neon() : generic;
  if (isa == Isa::Neon) return neon;
#endif
  return generic;
}

const GruKernels& gru_kernels() {
  static const GruKernels& k = gru_kernels(active_isa());
  return k;
}

int64_t gru_gate_row(int64_t col, int64_t hidden, int64_t block) {
  const int64_t b = col / (3 * block), q = col / block % 3, u = b * block + col % block;
  return u < hidden ? q * hidden + u : -1;
}

void pack_gru_r(const float* r, int64_t hidden, int64_t block, float* dst) {
  const int64_t cols = 3 * block;
  for (int64_t b = 0; b < lstm_blocks(hidden, block); b++) {
    float* panel = dst + b * hidden * cols;
    for (int64_t i = 0; i < cols; i++) {
      const int64_t row = gru_gate_row(b * cols + i, hidden, block);
      for (int64_t j = 0; j < hidden; j++) {
        panel[j * cols + i] = row < 0 ? 0.0f : r[row * hidden + j];
      }
    }
  }
}

}  // namespace kiln::kernels
