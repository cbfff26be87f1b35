// The recurrent part of one LSTM time step, fused: the product of the previous hidden state with
// R and the cell (default activations: sigmoid, tanh, tanh; optional peepholes), one batch item,
// over a range of unit blocks, so that the threads of a team can each take a range.
//
// Layout ("blocked"): the hidden units are cut into blocks of `block` units (the ISA's vector
// width), the last one zero-padded. Every per-gate vector is stored block by block, each block
// holding its four gates (ONNX order i, o, f, c) one after the other: gate q of unit
// b * block + u is at column (b * 4 + q) * block + u of a 4 * padded_hidden vector
// (lstm_gate_row maps a column back to ONNX's gate row q * hidden + unit). So one block's R is
// one contiguous [hidden, 4 * block] panel, and its four gate accumulators are four vectors that
// go straight into the cell without a round trip through memory.
//
// Sums: gate column g is xw[g] + h[0] R[0, g] + h[1] R[1, g] + ... in that order, fused
// multiply-adds where the ISA has them (AVX2, AVX-512, AArch64): every column is computed by the
// same sequence of vector lanes whatever the block range, so splitting blocks between threads
// never changes a bit. The cell has the accuracy of vec_math's sigmoid / tanh (vec_math.h).
#pragma once

#include <cstdint>

#include "kernels/mmm/mmm.h"

namespace kiln::kernels {

struct LstmKernels {
  int64_t block;  // hidden units per block
  // For blocks b in [first, last): gates = xw[b's columns] + h · R[b's panel], then the cell:
  // c[b's units] updated in place, h_out[b's units] written (padding units too: h_out and c
  // hold padded_hidden values). r: the blocked [blocks][hidden][4 * block] panels (pack_lstm_r);
  // xw: one 4 * padded_hidden row in blocked order (the input projection and both biases);
  // p: blocked peepholes [blocks][3][block] (pi, po, pf) or null; h: the previous hidden state,
  // `hidden` values, not aliasing h_out.
  void (*step)(const float* r, const float* xw, const float* p, const float* h, int64_t hidden,
               float* c, float* h_out, int64_t first, int64_t last);
};

// The kernels of an ISA (every ISA has them; generic is portable C++).
const LstmKernels& lstm_kernels(Isa isa);
// The kernels of active_isa().
const LstmKernels& lstm_kernels();

// Blocks of `block` units covering `hidden` units.
inline int64_t lstm_blocks(int64_t hidden, int64_t block) {
  return (hidden + block - 1) / block;
}
// The ONNX gate row (q * hidden + unit) of blocked column `col`, or -1 for a padding unit.
int64_t lstm_gate_row(int64_t col, int64_t hidden, int64_t block);
// Blocked R panels from ONNX's R [4 * hidden, hidden] (row-major): dst[b][j][q * block + u] =
// r[(q * hidden + b * block + u) * hidden + j], zero for padding units; dst holds
// blocks * hidden * 4 * block floats.
void pack_lstm_r(const float* r, int64_t hidden, int64_t block, float* dst);

LstmKernels lstm_kernels_generic();
#if defined(__x86_64__)
LstmKernels lstm_kernels_avx2();
LstmKernels lstm_kernels_avx512();
#endif
#if defined(__aarch64__) || defined(__arm__)
LstmKernels lstm_kernels_neon();
#endif

}  // namespace kiln::kernels
