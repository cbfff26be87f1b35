// fuse-residual (optimize, after codegen, before fuse-clamp): Add(ConvPacked(x), r) or
// Add(MatMulPacked(x), r), r of the output's type and shape (a residual connection; no
// broadcast), the product read by nothing else and not clamped yet, becomes the packed op with
// r as one more input, added in the kernel's epilogue as each output is stored: the sum costs no
// pass of its own over the output. A clamp after the sum (Conv + Add + Relu) can then still join
// through fuse-clamp, since the epilogue clamps after adding.
#pragma once

#include "core/pass.h"

namespace kiln::passes {

class FuseResidual : public Pass {
 public:
  std::string name() const override { return "fuse-residual"; }
  size_t run(Graph& graph) override;
};

}  // namespace kiln::passes
