// split-variadic: an f32 Sum, Mean, Max or Min of two or more inputs becomes a chain of
// two-input ops -- Add, Add then Div by the input count, Max, Min -- in input order, the order the
// reference op accumulates in (f32, left to right, one division at the end), so the outputs are
// the same bits. The chain's ops then run the vectorized kernels (BinaryF32, MinMaxF32) and join
// producers' epilogues like any other Add, instead of the variadic op's per-element reference
// loop (models converted from TensorFlow's AddN, Keras' Add / Average / Maximum layers).
// Other types keep the variadic op (f16 / bf16 accumulate in f32 there, once).
#pragma once

#include "core/pass.h"

namespace kiln::passes {

class SplitVariadic : public Pass {
 public:
  std::string name() const override { return "split-variadic"; }
  size_t run(Graph& graph) override;
};

}  // namespace kiln::passes
