// Reshape: a view of the input with another shape; 0 copies the input dim (unless allowzero),
// -1 is inferred from the element count.
#pragma once

#include "core/op.h"

namespace kiln::ops {

class Reshape : public Op {
 public:
  explicit Reshape(bool allowzero = false) : allowzero_(allowzero) {}
  std::string name() const override { return "Reshape"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const Reshape& o) { return std::tie(o.allowzero_); });
  }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  bool allowzero_;
};

// The shape of `input` reshaped to `target` (0 / -1 resolved). Symbolic inputs allowed.
std::vector<Dim> reshape_dims(const std::vector<Dim>& input, const std::vector<Dim>& target,
                              bool allowzero, const std::string& op);

}  // namespace kiln::ops
