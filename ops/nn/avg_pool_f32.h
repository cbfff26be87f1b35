// AvgPoolF32: an f32 AveragePool over 1 or 2 spatial dims without dilation, put in place by
// Pool::codegen: separable sums (the kernel rows' column sums, then windows along each output
// row; vectorized in kernels/pool), count_include_pad and ceil_mode as the reference op, planes
// split across threads. The sums run in another order than the reference's (errors in
// kernels/pool/pool.h).
#pragma once

#include <memory>

#include "ops/nn/pool.h"
#include "ops/nn/pool_geometry.h"

namespace kiln::ops {

class AvgPoolF32 : public Op {
 public:
  AvgPoolF32(std::shared_ptr<const Pool> reference, bool count_include_pad);
  std::string name() const override { return "AvgPoolF32"; }
  Attributes attributes() const override { return reference_->attributes(); }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override {
    return reference_->output_facts(inputs);
  }
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override { return reference_->cost(inputs); }
  // Whether an AveragePool with this geometry on an input of this fact can use this op.
  static bool supports(const Pool& pool, const Fact& input);

 private:
  std::shared_ptr<const Pool> reference_;
  bool count_include_pad_;
  CompletedPoolGeometry geometry_;
};

}  // namespace kiln::ops
