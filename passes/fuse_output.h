// fuse-output (optimize stage, after codegen): element-wise work right after a producer whose
// kernel stores its output through a fused epilogue (ops/core/output_steps.h: ConvPacked,
// MatMulPacked) joins that producer, so each output is finished as it is stored instead of in
// another pass over memory: a clamp (Relu, Clip), a LeakyRelu, an activation (Sigmoid, Tanh,
// GELU, SiLU, HardSwish...), or a binary op whose other operand is a residual, a per-channel or
// per-column vector or a scalar. The consumer says which step it is (OutputStepSource), the
// producer whether it takes it (FusableProducer); one consumer at a time, to a fixed point.
#pragma once

#include "core/pass.h"

namespace kiln::passes {

class FuseOutput : public Pass {
 public:
  std::string name() const override { return "fuse-output"; }
  size_t run(Graph& graph) override;

 private:
  size_t fuse_one_step(Graph& graph);
};

}  // namespace kiln::passes
