// The recurrent part of one GRU time step, fused: the product of the previous hidden state with R
// and the cell (default activations: sigmoid, tanh), one batch item, over a range of unit blocks.
//
// Layout ("blocked", as the LSTM step's with three gates): the hidden units are cut into blocks
// of `block` units (the ISA's vector width), the last one zero-padded; gate q (ONNX order z, r,
// h) of unit b * block + u is at column (b * 3 + q) * block + u of a 3 * padded_hidden vector
// (gru_gate_row maps a column back to ONNX's row q * hidden + unit). One block's R is one
// contiguous [hidden, 3 * block] panel (pack_gru_r).
//
// The two forms of ONNX's GRU:
// - linear_before_reset = 1 (PyTorch's and Keras' reset_after GRU): one pass per step,
//     z = sigmoid(xw_z + h R_z), r = sigmoid(xw_r + h R_r), n = tanh(xw_h + r (h R_h + Rb_h)),
//     h' = n + z (h - n),
//   with xw holding X W^T + Wb, plus Rb for the z and r gates only.
// - linear_before_reset = 0 (ONNX's default): the candidate needs r of every unit first, so a
//   step is two passes over the blocks:
//     reset_gates: z = sigmoid(xw_z + h R_z) and rh = sigmoid(xw_r + h R_r) * h,
//     candidate:   n = tanh(xw_h + rh R_h), h' = n + z (h - n),
//   with xw holding X W^T + Wb + Rb for every gate.
//
// Sums: column g is xw[g] (or Rb_h) + h[0] R[0, g] + h[1] R[1, g] + ... in that order, fused
// multiply-adds where the ISA has them, the same lanes whatever the block range: splitting the
// blocks never changes a bit. h, z and rh hold padded_hidden values (padding units 0: they stay
// 0 through every step).
#pragma once

#include <cstdint>

#include "kernels/mmm/mmm.h"
#include "kernels/recurrent/lstm_step.h"  // lstm_blocks

namespace kiln::kernels {

struct GruKernels {
  int64_t block;  // hidden units per block
  // linear_before_reset = 1: r the blocked panels, xw one 3 * padded_hidden blocked row, rbh the
  // blocked Rb_h (padded_hidden); h the previous state, h_out the new one (not aliasing h).
  void (*step_after)(const float* r, const float* xw, const float* rbh, const float* h,
                     int64_t hidden, float* h_out, int64_t first, int64_t last);
  // linear_before_reset = 0, first pass: z and rh (each padded_hidden) for blocks [first, last).
  void (*reset_gates)(const float* r, const float* xw, const float* h, int64_t hidden, float* z,
                      float* rh, int64_t first, int64_t last);
  // Second pass, once reset_gates covered every block: the candidate and the new state.
  void (*candidate)(const float* r, const float* xw, const float* rh, const float* z,
                    const float* h, int64_t hidden, float* h_out, int64_t first, int64_t last);
};

// The kernels of an ISA (every ISA has them; generic is portable C++).
const GruKernels& gru_kernels(Isa isa);
// The kernels of active_isa().
const GruKernels& gru_kernels();

// The ONNX gate row (q * hidden + unit) of blocked column `col`, or -1 for a padding unit.
int64_t gru_gate_row(int64_t col, int64_t hidden, int64_t block);
// Blocked R panels from ONNX's R [3 * hidden, hidden] (row-major): dst[b][j][q * block + u] =
// r[(q * hidden + b * block + u) * hidden + j], zero for padding units; dst holds
// blocks * hidden * 3 * block floats (blocks = lstm_blocks(hidden, block)).
void pack_gru_r(const float* r, int64_t hidden, int64_t block, float* dst);

GruKernels gru_kernels_generic();
#if defined(__x86_64__)
GruKernels gru_kernels_avx2();
GruKernels gru_kernels_avx512();
#endif
#if defined(__aarch64__) || defined(__arm__)
GruKernels gru_kernels_neon();
#endif

}  // namespace kiln::kernels
