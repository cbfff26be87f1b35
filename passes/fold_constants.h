// fold-constants: every used output whose value analysis knows (all inputs constant, shape
// arithmetic like Shape -> Gather -> Concat once dims are known, model inputs given a value
// with `-i name:i64=16000`) is replaced by a Const node. At declutter, DequantizeLinear of an
// integer constant (quantized weights, i32 biases) is kept: the int8 rewrite (passes/quant_ops,
// optimize stage) needs the integers, and NNEF archives store them as integers.
#pragma once

#include "core/pass.h"

namespace kiln::passes {

class FoldConstants : public Pass {
 public:
  explicit FoldConstants(bool keep_quantized_constants = false)
      : keep_quantized_(keep_quantized_constants) {}
  std::string name() const override { return "fold-constants"; }
  size_t run(Graph& graph) override;

 private:
  bool keep_quantized_;
};

// DequantizeLinear of a constant integer tensor (quantized weights or biases).
bool is_dequantized_constant(const Graph& graph, const Node& n);

}  // namespace kiln::passes
