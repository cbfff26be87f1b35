// If (ONNX): runs one of two branch graphs depending on a boolean condition.
// Node inputs are [cond, values captured by the branches...]; each branch says which node
// inputs feed its inputs (branches have no formal inputs, only captured values).
// Typing by cases: when the condition is known only at run time and the branches' output facts
// disagree (e.g. torch's squeeze(-1): rank 2 if the last dim is 1, else rank 3), Graph::analyse
// picks the branch under which the rest of the graph types; the If then carries that `assumed`
// branch, has its output facts, and refuses at run time inputs that take the other branch.
#pragma once

#include <optional>

#include "core/op.h"
#include "ops/control/subgraph_runner.h"

namespace kiln::ops {

struct IfBranch {
  GraphPtr graph;
  std::vector<size_t> input_map;  // node input index feeding each branch input
};

class If : public Op {
 public:
  // `assumed`: the condition value typing assumed (true: then branch), if any.
  If(IfBranch then_branch, IfBranch else_branch, std::optional<bool> assumed = std::nullopt);
  const IfBranch& then_branch() const { return then_.spec; }
  const IfBranch& else_branch() const { return else_.spec; }
  const std::optional<bool>& assumed() const { return assumed_; }
  std::string name() const override { return "If"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  // Both branches' facts when the condition is unknown, nothing is assumed and they disagree.
  std::vector<std::vector<Fact>> output_fact_cases(const FactRefs& inputs) const override;
  // Case 0 assumes the then branch, case 1 the else branch.
  OpPtr assume_case(size_t index) const override;
  std::string case_name(size_t index) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  std::unique_ptr<OpState> make_state(const FactRefs& inputs) const override;
  // The taken branch's cost when the condition is known, else the costlier branch's.
  Cost cost(const FactRefs& inputs) const override;
  std::vector<std::shared_ptr<const Graph>> subgraphs() const override {
    return {then_.spec.graph, else_.spec.graph};
  }
  // The branch run when the condition is `cond` (the declutter pass inlines it when constant).
  const IfBranch& branch(bool cond) const { return cond ? then_.spec : else_.spec; }
  // That branch's graph analysed for these node input facts: the ops typing by cases decided
  // inside it (nested Ifs) carry their assumption, so inlining it keeps them decided.
  GraphPtr analysed_branch(bool cond, const FactRefs& inputs) const;

 private:
  struct Branch {
    IfBranch spec;
    std::unique_ptr<SubgraphRunner> runner;
  };
  std::vector<Fact> branch_inputs(const Branch& b, const FactRefs& inputs) const;
  std::vector<Fact> branch_facts(const Branch& b, const FactRefs& inputs) const;
  Cost branch_cost(const Branch& b, const FactRefs& inputs) const;
  Branch then_;
  Branch else_;
  std::optional<bool> assumed_;
};

}  // namespace kiln::ops
