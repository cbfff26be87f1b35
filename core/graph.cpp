#include "core/graph.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <optional>

#include "base/error.h"
#include "core/sequence.h"
#include "core/source_ops.h"

namespace kiln {

void SourceOp::eval(EvalContext&, const TensorRefs&) const {
  fail("Source nodes are fed by the caller, never evaluated");
}

Outlet Graph::add_source(const std::string& name, Fact fact) {
  auto op = std::make_shared<SourceOp>(fact);
  int id = add_node(name, op, {}, 1);
  nodes_[static_cast<size_t>(id)].outputs[0] = std::move(fact);
  inputs_.push_back({id, 0});
  return {id, 0};
}

Outlet Graph::add_const(const std::string& name, Tensor value) {
  auto op = std::make_shared<ConstOp>(value);
  int id = add_node(name, op, {}, 1);
  nodes_[static_cast<size_t>(id)].outputs[0] = Fact::constant(std::move(value));
  return {id, 0};
}

int Graph::add_node(const std::string& name, OpPtr op, std::vector<Outlet> inputs,
                    size_t num_outputs, bool compute_facts) {
  int id = static_cast<int>(nodes_.size());
  for (const auto& in : inputs) {
    if (!in.present()) continue;
    KILN_ENSURE(in.node < id, "node {}: input from unknown node {}", name, in.node);
    KILN_ENSURE(in.slot >= 0 && static_cast<size_t>(in.slot) < nodes_[in.node].outputs.size(),
                "node {}: input from missing output {} of node {}", name, in.slot,
                describe(in.node));
  }
  Node n;
  n.id = id;
  n.name = name;
  n.op = std::move(op);
  n.inputs = std::move(inputs);
  n.outputs.resize(num_outputs);
  nodes_.push_back(std::move(n));
  if (compute_facts) analyse_node(id);
  return id;
}

const Fact& Graph::fact(Outlet o) const {
  const Node& n = node(o.node);
  KILN_ENSURE(o.slot >= 0 && static_cast<size_t>(o.slot) < n.outputs.size(),
              "outlet {}:{} does not exist", o.node, o.slot);
  return n.outputs[static_cast<size_t>(o.slot)];
}

namespace {
// Whether two constants are the same values without comparing them: the same tensor, or views of
// the same bytes with the same type and shape. (Constant facts are rebuilt as new Tensor objects
// sharing their storage; a FoldMemo holds its inputs, so their bytes cannot be freed and reused.)
bool same_value(const Tensor* a, const Tensor* b) {
  if (a == b) return true;
  if (!a || !b || is_object(a->dtype()) || a->dtype() != b->dtype() || a->shape() != b->shape())
    return false;
  return a->nbytes() > 0 && a->raw_data() == b->raw_data();
}
}  // namespace

void Graph::analyse_node(int id) {
  Node& n = node(id);
  if (dynamic_cast<const SourceOp*>(n.op.get())) return;
  try {
    FactRefs in;
    in.reserve(n.inputs.size());
    for (const auto& o : n.inputs) in.push_back(o.present() ? &fact(o) : nullptr);
    std::vector<Fact> facts = n.op->output_facts(in);
    KILN_ENSURE(facts.size() >= n.outputs.size(), "op computes {} outputs, node declares {}",
                facts.size(), n.outputs.size());
    // Fold: every input known, op deterministic and not already producing values.
    bool all_known = n.op->is_deterministic() && !n.inputs.empty();
    for (const Fact* f : in) all_known = all_known && (!f || f->value);
    bool missing = false;
    for (const auto& f : facts) missing = missing || !f.value;
    if (all_known && missing) {
      bool same = n.fold && n.fold->op == n.op && n.fold->inputs.size() == in.size() &&
                  n.fold->outputs.size() == facts.size();
      for (size_t i = 0; same && i < in.size(); i++)
        same = same_value(in[i] ? in[i]->value.get() : nullptr, n.fold->inputs[i].get());
      if (same) {
        facts = n.fold->outputs;
      } else {
        TensorRefs values;
        for (const Fact* f : in) values.push_back(f ? f->value.get() : nullptr);
        std::vector<Tensor> outs(facts.size());
        EvalContext ctx(outs);
        n.op->eval(ctx, values);
        for (size_t i = 0; i < facts.size(); i++) {
          if (outs[i].is_null()) continue;
          auto keep_dims = facts[i].dims_value;
          facts[i] = Fact::constant(std::move(outs[i]));
          if (!facts[i].dims_value && keep_dims) facts[i].dims_value = keep_dims;
        }
        auto memo = std::make_shared<FoldMemo>();
        memo->op = n.op;
        for (const Fact* f : in) memo->inputs.push_back(f ? f->value : nullptr);
        memo->outputs = facts;
        n.fold = std::move(memo);
      }
    }
    n.outputs = std::move(facts);
  } catch (Error& e) {
    e.with_context(fmt::format("in node {}", describe(id)));
    throw;
  }
}

namespace {

// Trial typings one analyse() may spend on cases before giving up (cases nested in the rest of
// the graph multiply).
constexpr size_t kMaxCaseTrials = 64;

// Analyses nodes [start, end) in order. A node whose facts fail but whose op offers cases
// (Op::output_fact_cases) is typed by cases: each case is assumed in turn (Op::assume_case) and
// the rest of the graph analysed on a copy. When exactly one case types every later node, the
// graph becomes that copy; when none or several do, the node's own error is thrown, saying why.
void analyse_with_cases(Graph& graph, size_t start, size_t& trials) {
  for (size_t i = start; i < graph.size(); i++) {
    int id = static_cast<int>(i);
    try {
      graph.analyse_node(id);
      continue;
    } catch (Error& error) {
      const Node& n = graph.node(id);
      FactRefs in;
      for (const auto& o : n.inputs) in.push_back(o.present() ? &graph.fact(o) : nullptr);
      std::vector<std::vector<Fact>> cases;
      try {
        cases = n.op->output_fact_cases(in);
      } catch (const Error&) {
        throw error;
      }
      if (cases.empty()) throw;
      std::string why;
      std::vector<std::string> typed;
      std::optional<Graph> chosen;
      for (size_t k = 0; k < cases.size(); k++) {
        OpPtr assumed = n.op->assume_case(k);
        if (!assumed) continue;
        if (trials >= kMaxCaseTrials) {
          error.with_context(fmt::format(
              "typing by cases gave up after {} trials (too many undecided ops)", trials));
          throw error;
        }
        trials++;
        Graph trial = graph;
        trial.node(id).op = assumed;
        try {
          analyse_with_cases(trial, i, trials);
        } catch (const Error& e) {
          why += fmt::format("; assuming the {}: {}", n.op->case_name(k), e.chain());
          continue;
        }
        typed.push_back(n.op->case_name(k));
        chosen = std::move(trial);
      }
      if (typed.size() == 1) {
        graph = std::move(*chosen);
        return;
      }
      if (typed.empty())
        error.with_context(
            fmt::format("no case of node {} types the graph{}", graph.describe(id), why));
      else
        error.with_context(fmt::format(
            "node {}: the graph types under several cases ({}), nothing tells which one runs",
            graph.describe(id), fmt::join(typed, ", ")));
      throw error;
    }
  }
}

}  // namespace

void Graph::analyse() {
  // Nodes are stored with inputs before users (add_node checks it), so one sweep suffices.
  size_t trials = 0;
  analyse_with_cases(*this, 0, trials);
}

void Graph::set_outputs(std::vector<Outlet> outputs, std::vector<std::string> names) {
  KILN_ENSURE(outputs.size() == names.size(), "{} outputs but {} names", outputs.size(),
              names.size());
  outputs_ = std::move(outputs);
  output_names_ = std::move(names);
}

void Graph::set_input_fact(size_t i, Fact fact) {
  KILN_ENSURE(i < inputs_.size(), "model has {} inputs, cannot set input {}", inputs_.size(), i);
  Node& n = node(inputs_[i].node);
  n.op = std::make_shared<SourceOp>(fact);
  n.outputs[0] = std::move(fact);
}

std::vector<int> Graph::eval_order() const {
  std::vector<int> order;
  std::vector<char> state(nodes_.size(), 0);  // 0 new, 1 in progress, 2 done
  std::vector<std::pair<int, size_t>> stack;
  for (const auto& out : outputs_) {
    if (state[static_cast<size_t>(out.node)] == 2) continue;
    stack.push_back({out.node, 0});
    while (!stack.empty()) {
      auto& [id, next] = stack.back();
      auto& s = state[static_cast<size_t>(id)];
      if (next == 0) s = 1;
      const auto& inputs = nodes_[static_cast<size_t>(id)].inputs;
      if (next < inputs.size()) {
        Outlet in = inputs[next++];
        if (!in.present()) continue;
        char& is = state[static_cast<size_t>(in.node)];
        KILN_ENSURE(is != 1, "cycle in graph through node {}", describe(in.node));
        if (is == 0) stack.push_back({in.node, 0});
      } else {
        s = 2;
        order.push_back(id);
        stack.pop_back();
      }
    }
  }
  return order;
}

int Graph::find_node(const std::string& name) const {
  for (const auto& n : nodes_)
    if (n.name == name) return n.id;
  return -1;
}

std::string Graph::describe(int id) const {
  const Node& n = node(id);
  return fmt::format("#{} '{}' ({})", id, n.name, n.op ? n.op->name() : "?");
}

void bind_input_shapes(Graph& graph, const std::vector<Tensor>& inputs) {
  for (size_t i = 0; i < inputs.size() && i < graph.inputs().size(); i++) {
    const Fact& fact = graph.fact(graph.inputs()[i]);
    const Tensor& t = inputs[i];
    if (!t.is_null() && is_container(t.dtype()) && t.dtype() == fact.dt) {
      graph.set_input_fact(i, fact_of_value(t));  // sequences: their items' shapes
      continue;
    }
    if (t.is_null() || t.dtype() != fact.dt || t.rank() != fact.rank() || fact.is_concrete())
      continue;
    Fact bound(fact.dt, t.shape());
    bool consistent = true;
    for (size_t d = 0; d < t.rank(); d++)
      if (fact.shape[d].is_int() && fact.shape[d].to_int() != t.shape()[d]) consistent = false;
    if (consistent) graph.set_input_fact(i, std::move(bound));
  }
}

std::vector<Fact> input_facts(const Graph& graph) {
  std::vector<Fact> out;
  for (const auto& o : graph.inputs()) out.push_back(graph.fact(o));
  return out;
}

std::vector<Fact> output_facts(const Graph& graph) {
  std::vector<Fact> out;
  for (const auto& o : graph.outputs()) out.push_back(graph.fact(o));
  return out;
}

}  // namespace kiln
