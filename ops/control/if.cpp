#include "ops/control/if.h"

#include <fmt/format.h>

#include <optional>

#include "base/error.h"
#include "core/graph_cost.h"

namespace kiln::ops {

namespace {
const char* branch_name(bool cond) {
  return cond ? "then" : "else";
}
}  // namespace

If::If(IfBranch then_branch, IfBranch else_branch, std::optional<bool> assumed)
    : assumed_(assumed) {
  then_.runner = std::make_unique<SubgraphRunner>(then_branch.graph);
  else_.runner = std::make_unique<SubgraphRunner>(else_branch.graph);
  then_.spec = std::move(then_branch);
  else_.spec = std::move(else_branch);
  for (const Branch* b : {&then_, &else_}) {
    KILN_ENSURE(b->spec.input_map.size() == b->runner->num_inputs(),
                "If: branch has {} inputs but {} are mapped", b->runner->num_inputs(),
                b->spec.input_map.size());
    for (size_t i : b->spec.input_map) KILN_ENSURE(i >= 1, "If: input 0 is the condition");
  }
  KILN_ENSURE(then_.runner->num_outputs() == else_.runner->num_outputs(),
              "If: then branch has {} outputs, else branch {}", then_.runner->num_outputs(),
              else_.runner->num_outputs());
}

std::vector<Fact> If::branch_inputs(const Branch& b, const FactRefs& inputs) const {
  std::vector<Fact> facts;
  for (size_t i : b.spec.input_map) {
    KILN_ENSURE(i < inputs.size() && inputs[i], "If: branch input {} is missing", i);
    facts.push_back(*inputs[i]);
  }
  return facts;
}

std::vector<Fact> If::branch_facts(const Branch& b, const FactRefs& inputs) const {
  return b.runner->analyse(branch_inputs(b, inputs));
}

GraphPtr If::analysed_branch(bool cond, const FactRefs& inputs) const {
  const Branch& b = cond ? then_ : else_;
  return b.runner->analysed_graph(branch_inputs(b, inputs));
}

Attributes If::attributes() const {
  if (!assumed_) return {};
  return {{"assumed", branch_name(*assumed_)}};
}

std::vector<Fact> If::output_facts(const FactRefs& inputs) const {
  const Fact& cond = required(inputs, 0, name());
  KILN_ENSURE(cond.volume().is_int() ? cond.volume().to_int() == 1 : true,
              "If: condition must have one element, got shape [{}]", dims_to_string(cond.shape));
  if (cond.value && assumed_) {
    bool taken = cond.value->value_as_double(0) != 0;
    KILN_ENSURE(taken == *assumed_,
                "If: the model was typed assuming this If takes its {} branch (its condition "
                "was only known at run time), but for these input facts the condition takes the "
                "{} branch, which the rest of the graph was not typed for; type the model with "
                "these input shapes (-i) instead",
                branch_name(*assumed_), branch_name(taken));
  }
  if (cond.value || assumed_) {
    bool taken = cond.value ? cond.value->value_as_double(0) != 0 : *assumed_;
    try {
      return branch_facts(taken ? then_ : else_, inputs);
    } catch (Error& e) {
      e.with_context(taken ? "in then branch" : "in else branch");
      throw;
    }
  }
  // A branch whose analysis fails for these inputs can never run with them: the outputs are
  // then those of the other branch.
  std::vector<Fact> t, e;
  std::optional<Error> then_error;
  try {
    t = branch_facts(then_, inputs);
  } catch (Error& err) {
    err.with_context("in then branch");
    then_error = err;
  }
  try {
    e = branch_facts(else_, inputs);
  } catch (Error& err) {
    err.with_context("in else branch");
    if (then_error) throw *then_error;
    return t;
  }
  if (then_error) return e;
  std::vector<Fact> out;
  for (size_t i = 0; i < t.size(); i++) {
    if (t[i].same_type_and_shape(e[i]) && t[i].value && e[i].value &&
        t[i].value->equals(*e[i].value)) {
      out.push_back(t[i]);
      continue;
    }
    out.push_back(
        merge_facts(t[i], e[i], fmt::format("If: output {} differs between branches", i)));
  }
  return out;
}

std::vector<std::vector<Fact>> If::output_fact_cases(const FactRefs& inputs) const {
  const Fact& cond = required(inputs, 0, name());
  if (cond.value || assumed_) return {};
  std::vector<Fact> t, e;
  try {
    t = branch_facts(then_, inputs);
    e = branch_facts(else_, inputs);
  } catch (const Error&) {
    return {};  // one branch cannot run with these inputs: output_facts takes the other
  }
  return {t, e};
}

OpPtr If::assume_case(size_t index) const {
  KILN_ENSURE(index < 2, "If: case {} does not exist (0: then, 1: else)", index);
  return std::make_shared<If>(then_.spec, else_.spec, index == 0);
}

std::string If::case_name(size_t index) const {
  return index == 0 ? "then branch" : "else branch";
}

Cost If::branch_cost(const Branch& b, const FactRefs& inputs) const {
  return graph_cost(*b.runner->analysed_graph(branch_inputs(b, inputs)));
}

Cost If::cost(const FactRefs& inputs) const {
  const Fact& cond = required(inputs, 0, name());
  if (cond.value) return branch_cost(cond.value->value_as_double(0) != 0 ? then_ : else_, inputs);
  if (assumed_) return branch_cost(*assumed_ ? then_ : else_, inputs);
  // A branch that cannot be analysed for these inputs never runs with them.
  std::optional<Cost> t, e;
  try {
    t = branch_cost(then_, inputs);
  } catch (const Error&) {
  }
  try {
    e = branch_cost(else_, inputs);
  } catch (const Error&) {
  }
  if (!t || !e) {
    KILN_ENSURE(t || e, "If: neither branch can be analysed for these inputs");
    return t ? *t : *e;
  }
  auto tf = t->fma.as_int(), ef = e->fma.as_int();
  if (tf && ef) return *tf >= *ef ? *t : *e;
  return t->fma.is_int() ? *e : *t;  // the symbolic one grows with the input
}

std::unique_ptr<OpState> If::make_state(const FactRefs&) const {
  return std::make_unique<BodyStates>(2);
}

void If::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& cond = required(inputs, 0, name());
  KILN_ENSURE(cond.numel() == 1, "If: condition must have one element, got shape [{}]",
              shape_to_string(cond.shape()));
  bool taken = cond.value_as_double(0) != 0;
  if (assumed_ && taken != *assumed_)
    fail(
        "If: the model was typed assuming this If takes its {} branch (its condition is only "
        "known when running, and the other branch's output facts do not fit the rest of the "
        "graph), but these inputs take the {} branch; give the input shapes with -i so that "
        "typing can decide",
        branch_name(*assumed_), branch_name(taken));
  const Branch& b = taken ? then_ : else_;
  std::vector<Tensor> args;
  for (size_t i : b.spec.input_map) {
    KILN_ENSURE(i < inputs.size() && inputs[i], "If: branch input {} is missing", i);
    args.push_back(*inputs[i]);
  }
  auto outs = b.runner->run(ctx.op_state<BodyStates>(*this).at(taken ? 0 : 1), args,
                            ctx.body_timing(taken ? 0 : 1));
  for (size_t i = 0; i < outs.size() && i < ctx.num_outputs(); i++)
    ctx.set_output(i, std::move(outs[i]));
}

}  // namespace kiln::ops
