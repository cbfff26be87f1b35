// LRN: local response normalization across channels (axis 1).
#pragma once

#include "core/op.h"

namespace kiln::ops {

class Lrn : public Op {
 public:
  Lrn(int64_t size, float alpha, float beta, float bias)
      : size_(size), alpha_(alpha), beta_(beta), bias_(bias) {}
  std::string name() const override { return "LRN"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;
  // Its loops are the reference: profiles flag it (no kernel form yet).
  bool is_reference_impl() const override { return true; }

 private:
  int64_t size_;
  float alpha_, beta_, bias_;
};

}  // namespace kiln::ops
