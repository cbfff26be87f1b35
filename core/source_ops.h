// The two ops every graph has: Source (a model input) and Const (a constant tensor).
#pragma once

#include "core/op.h"

namespace kiln {

class SourceOp : public Op {
 public:
  explicit SourceOp(Fact fact) : fact_(std::move(fact)) {}
  std::string name() const override { return "Source"; }
  std::vector<Fact> output_facts(const FactRefs&) const override { return {fact_}; }
  void eval(EvalContext&, const TensorRefs&) const override;
  Cost cost(const FactRefs&) const override { return {}; }
  const Fact& fact() const { return fact_; }

 private:
  Fact fact_;
};

class ConstOp : public Op {
 public:
  explicit ConstOp(Tensor value) : value_(std::move(value)) {}
  std::string name() const override { return "Const"; }
  std::vector<Fact> output_facts(const FactRefs&) const override {
    return {Fact::constant(value_)};
  }
  void eval(EvalContext& ctx, const TensorRefs&) const override { ctx.set_output(0, value_); }
  Cost cost(const FactRefs&) const override { return {}; }
  const Tensor& value() const { return value_; }

 private:
  Tensor value_;
};

}  // namespace kiln
