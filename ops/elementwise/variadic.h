// Variadic element-wise ops over any number of inputs, broadcast together: Sum, Mean, Min, Max.
#pragma once

#include "core/op.h"

namespace kiln::ops {

enum class VariadicKind { Sum, Mean, Min, Max };

class Variadic : public Op {
 public:
  explicit Variadic(VariadicKind kind) : kind_(kind) {}
  VariadicKind kind() const { return kind_; }

  std::string name() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  VariadicKind kind_;
};

}  // namespace kiln::ops
