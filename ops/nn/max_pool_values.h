// MaxPoolValues: an f32 MaxPool whose indices output nobody reads (put in place by the optimize
// pass max-pool-values): one output, a separable kernel (the max of the kernel rows first, then
// along each output row; vectorized in kernels/pool), with no per-element bounds checks. 1-D and
// 2-D, no dilation. Also u8 / i8 values (quantized models: kernels/pool/max_pool_q8.h).
#pragma once

#include <memory>

#include "ops/nn/pool.h"
#include "ops/nn/pool_geometry.h"

namespace kiln::ops {

class MaxPoolValues : public Op {
 public:
  explicit MaxPoolValues(std::shared_ptr<const Pool> reference);
  std::string name() const override { return "MaxPoolValues"; }
  Attributes attributes() const override { return reference_->attributes(); }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override { return reference_->cost(inputs); }
  // Whether a MaxPool with this geometry on an input of this fact can use this op.
  static bool supports(const Pool& pool, const Fact& input);

 private:
  std::shared_ptr<const Pool> reference_;
  CompletedPoolGeometry geometry_;
};

}  // namespace kiln::ops
