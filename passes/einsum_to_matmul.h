// einsum-to-matmul: a two-input f32 Einsum whose every label is a batch label (in both inputs
// and the output), a contracted one (in both inputs, not the output) or a free one (in one input
// and the output) -- attention's "bhqd,bhkd->bhqk" and "bhqk,bhkd->bhqd", a linear layer's
// "bld,dh->blh", a 1x1 convolution's "nchw,dc->ndhw", "...d,dh->...h" -- becomes
//   Transpose -> [Reshape] -> MatMul <- [Reshape] <- Transpose, then [Reshape] -> Transpose:
// each operand's axes put in (batch, free, contracted) / (batch, contracted, free) order, its
// free and contracted groups merged into one axis each when they are not one already (at most
// one group of unknown size per reshape: -1), the product's free axes split again and permuted
// into the output's order. Both operand orders are tried (and, without batch labels, the right
// operand's leading free labels as batch axes the left broadcasts over), the one transposing
// fewest run-time tensors taken: "nchw,dc->ndhw" with constant weights is one MatMul of
// [d, c] by [n, c, h * w], nothing transposed. Identity transposes are left out; transpose-chains
// and reshape-chains tidy the rest. The MatMul runs the packed kernels instead of Einsum's
// per-element reference loops. Declined (the Einsum stays): repeated labels (diagonals), a label
// summed in one input only, a contracted label of different sizes (size-1 broadcasting), other
// types, other operand counts.
#pragma once

#include "core/pass.h"

namespace kiln::passes {

class EinsumToMatMul : public Pass {
 public:
  std::string name() const override { return "einsum-to-matmul"; }
  size_t run(Graph& graph) override;
};

}  // namespace kiln::passes
