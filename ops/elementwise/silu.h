// Silu (swish): y = x * sigmoid(x), float types. Not an ONNX op: the fuse-silu pass makes it from
// Mul(x, Sigmoid(x)). Codegen gives its f32 form ("SiluF32"): sigmoid through the vectorized
// kernels/elementwise/vec_math (|abs err| <= 2e-7) times x, in blocks, so y may alias x.
#pragma once

#include "core/op.h"
#include "ops/core/output_steps.h"

namespace kiln::ops {

class Silu : public Op, public OutputStepSource {
 public:
  explicit Silu(bool vectorized = false) : vectorized_(vectorized) {}
  bool vectorized() const { return vectorized_; }
  std::string name() const override { return vectorized_ ? "SiluF32" : "Silu"; }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  // One exp per element (as Sigmoid), counted as `other`.
  Cost cost(const FactRefs& inputs) const override;
  // f32: the vectorized form.
  OpPtr codegen(const FactRefs& inputs) const override;
  // The step this op is on a producer's output (ops/core/output_steps.h).
  std::optional<OutputStep> output_step(const FactRefs& inputs, size_t value) const override;
  bool is_reference_impl() const override { return true; }

 private:
  bool vectorized_;
};

}  // namespace kiln::ops
