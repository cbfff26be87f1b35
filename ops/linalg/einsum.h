// Einsum: Einstein summation over an equation like "bij,bjk->bik". Supports implicit output
// (ellipsis dims, then labels seen once, alphabetically), repeated labels in an input
// (diagonals), ellipsis with broadcasting, and size-1 broadcasting of any label.
#pragma once

#include "core/op.h"

namespace kiln::ops {

class Einsum : public Op {
 public:
  // Parses the equation; throws kiln::Error when malformed.
  explicit Einsum(std::string equation);
  std::string name() const override { return "Einsum"; }
  Attributes attributes() const override { return {{"equation", equation_}}; }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;
  // Its loops are the reference: profiles flag it (no kernel form yet).
  bool is_reference_impl() const override { return true; }

  // Labels per input axis and per output axis once ellipses are expanded for these ranks;
  // letters are their character codes, ellipsis dims are 256 + position.
  struct Resolved {
    std::vector<std::vector<int>> inputs;
    std::vector<int> output;
    std::vector<int> all;  // output labels first, then the summed ones
  };
  Resolved resolve(const std::vector<size_t>& ranks) const;

 private:
  static constexpr int kEllipsis = -1;
  std::string equation_;
  std::vector<std::vector<int>> terms_;  // letters, kEllipsis for "..."
  bool explicit_output_ = false;
  std::vector<int> output_term_;
};

}  // namespace kiln::ops
