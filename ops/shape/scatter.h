// ScatterElements (also the deprecated Scatter) and ScatterND: a copy of data with updates
// written (or combined by a reduction) at integer indices.
#pragma once

#include "core/op.h"

namespace kiln::ops {

enum class ScatterReduction { None, Add, Mul, Max, Min };

// Parses "none", "add", "mul", "max", "min".
ScatterReduction parse_scatter_reduction(const std::string& text);
std::string to_string(ScatterReduction r);

class ScatterElements : public Op {
 public:
  explicit ScatterElements(int64_t axis = 0, ScatterReduction reduction = ScatterReduction::None)
      : axis_(axis), reduction_(reduction) {}
  std::string name() const override { return "ScatterElements"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  int64_t axis_;
  ScatterReduction reduction_;
};

class ScatterND : public Op {
 public:
  explicit ScatterND(ScatterReduction reduction = ScatterReduction::None) : reduction_(reduction) {}
  std::string name() const override { return "ScatterND"; }
  Attributes attributes() const override { return {{"reduction", to_string(reduction_)}}; }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  ScatterReduction reduction_;
};

}  // namespace kiln::ops
