// GlobalAveragePool, GlobalMaxPool and GlobalLpPool: one value per (batch, channel) over all
// spatial dims, which are kept with size 1. f32 averages run on kernels/pool (double vector sums,
// planes split over threads); the rest sums sequentially in double.
#pragma once

#include "core/op.h"
#include "ops/nn/pool.h"

namespace kiln::ops {

class GlobalPool : public Op {
 public:
  explicit GlobalPool(PoolKind kind, float p = 2.0f) : kind_(kind), p_(p) {}
  std::string name() const override;
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;

 private:
  PoolKind kind_;
  float p_;
};

}  // namespace kiln::ops
