#include "ops/control/subgraph_runner.h"

#include <algorithm>
#include <cstring>

#include "base/error.h"
#include "core/sequence.h"

namespace kiln::ops {

namespace {

constexpr size_t kMaxCachedGraphs = 16;

bool accepts(const std::vector<Fact>& facts, const std::vector<Tensor>& inputs) {
  if (facts.size() != inputs.size()) return false;
  SymbolValues symbols;
  for (size_t i = 0; i < facts.size(); i++) {
    const Fact& f = facts[i];
    const Tensor& t = inputs[i];
    if (t.is_null() || t.dtype() != f.dt || t.rank() != f.rank()) return false;
    if (is_container(f.dt)) {
      // The body was analysed for items of some shapes: they must still describe these.
      if (!fact_admits(f, t)) return false;
      continue;
    }
    for (size_t d = 0; d < t.rank(); d++) {
      Dim bound = f.shape[d].substitute(symbols);
      if (bound.is_int()) {
        if (bound.to_int() != t.dim(d)) return false;
      } else {
        auto syms = bound.symbols();
        if (syms.size() == 1 && bound == Dim::symbol(syms[0])) symbols[syms[0]] = t.dim(d);
      }
    }
    if (f.value && !t.shares_storage_with(*f.value) && !t.equals(*f.value)) return false;
  }
  return true;
}

// Elements [begin, begin+count) of src copied to dst at dst_begin (any datum type).
void copy_elements(const Tensor& src, int64_t begin, Tensor& dst, int64_t dst_begin,
                   int64_t count) {
  if (count <= 0) return;
  if (src.dtype() == DatumType::String) {
    const std::string* s = src.data<std::string>() + begin;
    std::string* d = dst.data<std::string>() + dst_begin;
    for (int64_t i = 0; i < count; i++) d[i] = s[i];
    return;
  }
  size_t es = size_of(src.dtype());
  std::memcpy(static_cast<char*>(dst.raw_data()) + static_cast<size_t>(dst_begin) * es,
              static_cast<const char*>(src.raw_data()) + static_cast<size_t>(begin) * es,
              static_cast<size_t>(count) * es);
}

}  // namespace

SubgraphRunner::SubgraphRunner(GraphPtr body) : body_(std::move(body)) {
  KILN_ENSURE(body_, "control-flow op without a body graph");
}

std::vector<Fact> SubgraphRunner::analyse(const std::vector<Fact>& input_facts) const {
  KILN_ENSURE(input_facts.size() == num_inputs(), "body graph has {} inputs, given {} facts",
              num_inputs(), input_facts.size());
  GraphPtr g = analysed(input_facts);
  std::vector<Fact> out;
  for (const auto& o : g->outputs()) out.push_back(g->fact(o));
  std::lock_guard<std::mutex> lock(mutex_);
  constant_inputs_.clear();
  for (const auto& f : input_facts) constant_inputs_.push_back(f.value != nullptr);
  return out;
}

GraphPtr SubgraphRunner::analysed_graph(const std::vector<Fact>& input_facts) const {
  KILN_ENSURE(input_facts.size() == num_inputs(), "body graph has {} inputs, given {} facts",
              num_inputs(), input_facts.size());
  return analysed(input_facts);
}

GraphPtr SubgraphRunner::analysed(const std::vector<Fact>& facts) const {
  auto graph = std::make_shared<Graph>(*body_);
  for (size_t i = 0; i < facts.size(); i++) graph->set_input_fact(i, facts[i]);
  graph->analyse();
  std::lock_guard<std::mutex> lock(mutex_);
  analyses_.push_front({facts, graph});
  if (analyses_.size() > kMaxCachedGraphs) analyses_.pop_back();
  return graph;
}

namespace {

// Runs `state`, timing each node into `timing` when it has a timer.
std::vector<Tensor> run_state(State& state, const std::vector<Tensor>& inputs,
                              const BodyTiming& timing) {
  if (!timing.timer) return state.run(inputs);
  const Graph& g = state.plan().graph();
  return state.run_timed(
      inputs,
      [&](int node, std::chrono::nanoseconds elapsed) {
        timing.timer->node(timing.path, g, node, elapsed);
      },
      timing.timer, timing.path + "/");
}

}  // namespace

std::vector<Tensor> SubgraphRunner::run(Runs& runs, const std::vector<Tensor>& inputs,
                                        const BodyTiming& timing) const {
  KILN_ENSURE(inputs.size() == num_inputs(), "body graph has {} inputs, given {} tensors",
              num_inputs(), inputs.size());
  for (auto it = runs.entries_.begin(); it != runs.entries_.end(); ++it) {
    if (!accepts(it->facts, inputs)) continue;
    if (it != runs.entries_.begin()) std::iter_swap(it, runs.entries_.begin());
    maybe_optimize(runs.entries_.front());
    return run_state(*runs.entries_.front().state, inputs, timing);
  }
  std::vector<Fact> facts;
  std::vector<bool> constants;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    constants = constant_inputs_;
  }
  for (size_t i = 0; i < inputs.size(); i++) {
    if (i < constants.size() && constants[i])
      facts.push_back(Fact::constant(inputs[i]));
    else
      facts.push_back(fact_of_value(inputs[i]));
  }
  GraphPtr graph;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& a : analyses_) {
      if (a.facts.size() == facts.size() &&
          std::equal(a.facts.begin(), a.facts.end(), facts.begin(),
                     [](const Fact& x, const Fact& y) {
                       return x.same_type_and_shape(y) && !x.value == !y.value &&
                              (!x.value || x.value->equals(*y.value));
                     })) {
        graph = a.graph;
        break;
      }
    }
  }
  if (!graph) graph = analysed(facts);
  runs.entries_.push_front(
      {facts, graph, std::make_unique<State>(std::make_shared<Plan>(graph)), 0, false});
  if (runs.entries_.size() > kMaxCachedGraphs) runs.entries_.pop_back();
  return run_state(*runs.entries_.front().state, inputs, timing);
}

void SubgraphRunner::maybe_optimize(Runs::Entry& entry) const {
  if (!optimizer_ || entry.optimized || ++entry.hits < 1) return;
  entry.optimized = true;
  auto copy = std::make_shared<Graph>(*entry.graph);
  try {
    optimizer_(*copy);
  } catch (const Error&) {
    return;  // a body the passes cannot take keeps running as analysed
  }
  entry.state = std::make_unique<State>(std::make_shared<Plan>(copy));
}

Fact without_value(Fact fact) {
  fact.value.reset();
  fact.dims_value.reset();
  return fact;
}

Fact merge_facts(const Fact& a, const Fact& b, const std::string& what) {
  KILN_ENSURE(a.dt == b.dt, "{}: type {} vs {}", what, name_of(a.dt), name_of(b.dt));
  if (is_container(a.dt) || !a.rank_known || !b.rank_known) return generalize_facts(a, b, what);
  KILN_ENSURE(a.rank() == b.rank(), "{}: rank {} ([{}]) vs {} ([{}])", what, a.rank(),
              dims_to_string(a.shape), b.rank(), dims_to_string(b.shape));
  Fact out(a.dt, a.shape);
  for (size_t d = 0; d < a.rank(); d++)
    if (a.shape[d] != b.shape[d]) out.shape[d] = Dim::fresh();
  return out;
}

Tensor take_along(const Tensor& t, size_t axis, int64_t index) {
  KILN_ENSURE(axis < t.rank(), "slice axis {} out of range for rank {}", axis, t.rank());
  KILN_ENSURE(index >= 0 && index < t.dim(axis), "slice index {} out of range [0, {})", index,
              t.dim(axis));
  Shape shape = t.shape();
  shape.erase(shape.begin() + static_cast<long>(axis));
  Tensor out(t.dtype(), shape);
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; d++) outer *= t.dim(d);
  for (size_t d = axis + 1; d < t.rank(); d++) inner *= t.dim(d);
  for (int64_t o = 0; o < outer; o++)
    copy_elements(t, (o * t.dim(axis) + index) * inner, out, o * inner, inner);
  return out;
}

void put_along(Tensor& out, size_t axis, int64_t index, const Tensor& slice) {
  KILN_ENSURE(axis < out.rank(), "axis {} out of range for rank {}", axis, out.rank());
  Shape expected = out.shape();
  expected.erase(expected.begin() + static_cast<long>(axis));
  KILN_ENSURE(slice.shape() == expected && slice.dtype() == out.dtype(),
              "iteration output is {} [{}], expected {} [{}]", name_of(slice.dtype()),
              shape_to_string(slice.shape()), name_of(out.dtype()), shape_to_string(expected));
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; d++) outer *= out.dim(d);
  for (size_t d = axis + 1; d < out.rank(); d++) inner *= out.dim(d);
  for (int64_t o = 0; o < outer; o++)
    copy_elements(slice, o * inner, out, (o * out.dim(axis) + index) * inner, inner);
}

}  // namespace kiln::ops
