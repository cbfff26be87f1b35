// MatMulDynamic: an f32 MatMul whose operands are both computed at run time (attention scores,
// attention-weighted values) or whose right operand is (a constant left one: an einsum's weights
// by [n, c, t] activations), specialised by MatMul::codegen when both have rank >= 2: each
// batch's product runs through the packed matrix multiply, packing A and B panels on the fly,
// MatMul's bias (if any) in the epilogue; batch dims broadcast (ranks may differ, dims of 1
// repeat) without a layout.
//
// A layout (set by the fold-transpose-matmul pass) reads transposed operands and writes a
// transposed result without moving data: with perms a, b, y the op computes
//   Transpose(MatMul(Transpose(A, a), Transpose(B, b)), y)
// by giving the matrix multiply the strides of the permuted views (y must keep the last axis
// last, so output columns stay contiguous). Heads of attention are the typical batch dims.
#pragma once

#include <array>

#include <memory>

#include "kernels/mmm/mmm.h"
#include "ops/nn/matmul.h"

namespace kiln::ops {

class MatMulDynamic : public Op {
 public:
  // Permutations in Transpose's convention (output axis d = input axis perm[d]); empty: none.
  struct Layout {
    std::vector<size_t> a, b, y;
    bool empty() const { return a.empty() && b.empty() && y.empty(); }
  };
  // The largest rank a layout may have.
  static constexpr size_t kMaxLayoutRank = 8;
  using Dims = std::array<int64_t, kMaxLayoutRank>;

  explicit MatMulDynamic(std::shared_ptr<const MatMul> reference, Layout layout = {});
  std::string name() const override { return "MatMulDynamic"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;
  const Layout& layout() const { return layout_; }
  const std::shared_ptr<const MatMul>& reference() const { return reference_; }

 private:
  void eval_plain(EvalContext& ctx, const TensorRefs& inputs) const;
  void eval_layout(EvalContext& ctx, const TensorRefs& inputs) const;
  // Without a layout, operands whose batch dims broadcast (ranks may differ): false when the
  // shapes do not fit (the reference op then says why).
  bool eval_broadcast(EvalContext& ctx, const TensorRefs& inputs) const;
  // The products of both paths: batch dims [0, r - 2) with the element strides of A, B and the
  // output along each (0: broadcast); at r - 2 and r - 1 A's row and depth strides, B's depth
  // and column strides, the output's row stride; the bias (input 2) in the epilogue.
  void products(EvalContext& ctx, const TensorRefs& inputs, size_t r, const Dims& batch,
                const Dims& sa, const Dims& sb, const Dims& sy, int64_t m, int64_t n, int64_t k,
                float* py) const;

  std::shared_ptr<const MatMul> reference_;
  const kernels::MicroKernel* kernel_;
  Layout layout_;
};

}  // namespace kiln::ops
