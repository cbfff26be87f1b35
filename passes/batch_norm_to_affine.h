// batchnorm-to-affine: an inference BatchNormalization with constant statistics becomes
// x * s + b with per-channel constants s = scale / sqrt(var + eps), b = bias - mean * s
// (shaped [C, 1, ...] to broadcast over axis 1); fold-affine then moves them into the
// preceding Conv or MatMul when there is one. A 16-bit float one only after a Conv (as Mul / Add
// it would round s, b and the product to 16 bits).
#pragma once

#include "core/pass.h"

namespace kiln::passes {

class BatchNormToAffine : public Pass {
 public:
  std::string name() const override { return "batchnorm-to-affine"; }
  size_t run(Graph& graph) override;
};

}  // namespace kiln::passes
