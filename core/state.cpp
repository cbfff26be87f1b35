#include "core/state.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <new>

#include "base/error.h"
#include "core/run_limits.h"
#include "core/source_ops.h"

namespace kiln {

Plan::Plan(GraphPtr graph) : graph_(std::move(graph)) {
  KILN_ENSURE(graph_, "cannot plan a null graph");
  const Graph& g = *graph_;
  order_ = g.eval_order();
  step_.assign(g.size(), -1);
  last_use_.resize(g.size());
  for (size_t s = 0; s < order_.size(); s++) {
    int id = order_[s];
    step_[static_cast<size_t>(id)] = static_cast<int>(s);
    last_use_[static_cast<size_t>(id)].assign(g.node(id).outputs.size(), static_cast<int>(s));
  }
  for (const auto& n : g.nodes()) {
    if (last_use_[static_cast<size_t>(n.id)].size() < n.outputs.size())
      last_use_[static_cast<size_t>(n.id)].resize(n.outputs.size(), -1);
  }
  for (int id : order_) {
    for (const Outlet& in : g.node(id).inputs) {
      if (!in.present()) continue;
      int& last = last_use_[static_cast<size_t>(in.node)][static_cast<size_t>(in.slot)];
      last = std::max(last, step_[static_cast<size_t>(id)]);
    }
  }
  for (const Outlet& o : g.outputs())
    last_use_[static_cast<size_t>(o.node)][static_cast<size_t>(o.slot)] =
        static_cast<int>(order_.size());
}

// One node output as the memory plan sees it.
struct State::Value {
  int node = -1;
  int first = -1;         // step of its node (-1: not planned)
  int last = -1;          // last step that reads it, or a view of it (order size: model output)
  size_t bytes = 0;       // largest size seen
  int root = -1;          // the value whose buffer it lives in (itself when it has its own)
  int source = -1;        // handed over: the input value whose buffer it views (-1: none)
  bool computed = false;  // produced by a node that runs (not a model input, not a constant)
  OutputKind layout_kind = OutputKind::None;  // how it was made when the arena was laid out
};

// How check_inputs checks one dim of one input.
struct State::InputDim {
  enum Kind { Int, Symbol, Expr } kind;
  size_t input, axis;
  int64_t value = 0;  // Int
  size_t symbol = 0;  // Symbol: index in symbol_names_
  Dim expr;           // Expr
};

State::State(PlanPtr plan) : plan_(std::move(plan)) {
  const Graph& g = plan_->graph();
  values_.resize(g.size());
  first_value_.resize(g.size());
  size_t count = 0;
  for (const auto& n : g.nodes()) {
    values_[static_cast<size_t>(n.id)].resize(n.outputs.size());
    first_value_[static_cast<size_t>(n.id)] = count;
    count += n.outputs.size();
  }
  values_info_.resize(count);
  placements_.resize(count);
  kinds_.assign(count, OutputKind::None);
  for (const auto& n : g.nodes()) {
    for (size_t s = 0; s < n.outputs.size(); s++) {
      Value& v = values_info_[first_value_[static_cast<size_t>(n.id)] + s];
      v.node = n.id;
      v.first = plan_->step(n.id);
      v.last = plan_->last_use({n.id, static_cast<int>(s)});
    }
  }
  refs_.resize(g.size());
  op_states_.resize(g.size());
  for (int id : plan_->order()) {
    const Node& n = g.node(id);
    if (auto* c = dynamic_cast<const ConstOp*>(n.op.get())) {
      values_[static_cast<size_t>(id)][0] = c->value();
    } else if (!dynamic_cast<const SourceOp*>(n.op.get())) {
      order_without_consts_.push_back(id);
      FactRefs facts;
      for (const auto& o : n.inputs) facts.push_back(o.present() ? &g.fact(o) : nullptr);
      op_states_[static_cast<size_t>(id)] = n.op->make_state(facts);
      for (size_t s = 0; s < n.outputs.size(); s++)
        values_info_[first_value_[static_cast<size_t>(id)] + s].computed = true;
    }
    for (const auto& o : n.inputs)
      refs_[static_cast<size_t>(id)].push_back(
          o.present() ? &values_[static_cast<size_t>(o.node)][static_cast<size_t>(o.slot)]
                      : nullptr);
  }
  // Input dims: integers and plain symbols are checked without building Dims at run time.
  for (size_t i = 0; i < g.inputs().size(); i++) {
    const Fact& fact = g.fact(g.inputs()[i]);
    for (size_t d = 0; d < fact.rank(); d++) {
      const Dim& dim = fact.shape[d];
      InputDim check{InputDim::Expr, i, d, 0, 0, Dim()};
      if (dim.is_int()) {
        check.kind = InputDim::Int;
        check.value = dim.to_int();
      } else if (auto syms = dim.symbols(); syms.size() == 1 && dim == Dim::symbol(syms[0])) {
        check.kind = InputDim::Symbol;
        auto it = std::find(symbol_names_.begin(), symbol_names_.end(), syms[0]);
        check.symbol = static_cast<size_t>(it - symbol_names_.begin());
        if (it == symbol_names_.end()) symbol_names_.push_back(syms[0]);
      } else {
        check.expr = dim;
      }
      input_dims_.push_back(std::move(check));
    }
  }
  symbol_values_.assign(symbol_names_.size(), 0);
  symbol_bound_.assign(symbol_names_.size(), 0);
}

State::~State() = default;

void State::check_inputs(const std::vector<Tensor>& inputs) {
  const Graph& g = plan_->graph();
  KILN_ENSURE(inputs.size() == g.inputs().size(), "model expects {} inputs, got {}",
              g.inputs().size(), inputs.size());
  for (size_t i = 0; i < inputs.size(); i++) {
    const Fact& fact = g.fact(g.inputs()[i]);
    const Tensor& t = inputs[i];
    KILN_ENSURE(!t.is_null(), "input '{}' is missing", g.input_name(i));
    KILN_ENSURE(t.dtype() == fact.dt, "input '{}' should be {} but is {}", g.input_name(i),
                name_of(fact.dt), name_of(t.dtype()));
    KILN_ENSURE(t.rank() == fact.rank(), "input '{}' should have shape [{}] (rank {}) but has [{}]",
                g.input_name(i), dims_to_string(fact.shape), fact.rank(),
                shape_to_string(t.shape()));
  }
  auto mismatch = [&](const InputDim& d, const std::string& expected) {
    const Fact& fact = g.fact(g.inputs()[d.input]);
    const Tensor& t = inputs[d.input];
    fail("input '{}' should have shape [{}] but has [{}] (axis {}: {} != {})",
         g.input_name(d.input), dims_to_string(fact.shape), shape_to_string(t.shape()), d.axis,
         expected, t.shape()[d.axis]);
  };
  std::fill(symbol_bound_.begin(), symbol_bound_.end(), 0);
  for (const InputDim& d : input_dims_) {
    int64_t actual = inputs[d.input].shape()[d.axis];
    if (d.kind == InputDim::Int) {
      if (actual != d.value) mismatch(d, std::to_string(d.value));
    } else if (d.kind == InputDim::Symbol) {
      if (symbol_bound_[d.symbol]) {
        if (actual != symbol_values_[d.symbol])
          mismatch(d, std::to_string(symbol_values_[d.symbol]));
      } else {
        symbol_bound_[d.symbol] = 1;
        symbol_values_[d.symbol] = actual;
      }
    }
  }
  // The symbols' map is updated in place: no allocation once it holds every symbol.
  for (size_t s = 0; s < symbol_names_.size(); s++) {
    auto it = symbols_.find(symbol_names_[s]);
    if (symbol_bound_[s]) {
      if (it != symbols_.end())
        it->second = symbol_values_[s];
      else
        symbols_.emplace(symbol_names_[s], symbol_values_[s]);
    } else if (it != symbols_.end()) {
      symbols_.erase(it);
    }
  }
  // Composite dims (2*S, S+1), once every plain symbol is bound.
  for (const InputDim& d : input_dims_) {
    if (d.kind != InputDim::Expr) continue;
    Dim bound = d.expr.substitute(symbols_);
    if (bound.is_int() && bound.to_int() != inputs[d.input].shape()[d.axis])
      mismatch(d, bound.to_string());
  }
}

std::vector<Tensor> State::run(const std::vector<Tensor>& inputs) {
  std::vector<Tensor> outputs;
  run_into(inputs, outputs, nullptr);
  return outputs;
}

void State::run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
  run_into(inputs, outputs, nullptr);
}

void State::run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
                const std::vector<Tensor>& targets) {
  KILN_ENSURE(targets.size() == plan_->graph().outputs().size(),
              "the model has {} outputs, {} targets given", plan_->graph().outputs().size(),
              targets.size());
  run_into(inputs, outputs, nullptr, nullptr, nullptr, &targets);
}

// Caller memory must not outlive the run in values_: a later run would write into it (a
// Written value keeps its buffer for the next run).
void State::release_borrowed() {
  borrowed_ = false;
  for (auto& slots : values_)
    for (Tensor& t : slots)
      if (t.is_borrowed()) t.drop_storage();
}

std::vector<Tensor> State::run_timed(const std::vector<Tensor>& inputs, const NodeTimer& timer,
                                     BodyTimer* bodies, const std::string& prefix) {
  std::vector<Tensor> outputs;
  run_into(inputs, outputs, timer ? &timer : nullptr, bodies, &prefix);
  return outputs;
}

void State::run_into(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
                     const NodeTimer* timer, BodyTimer* bodies, const std::string* prefix,
                     const std::vector<Tensor>* targets) {
  try {
    evaluate(inputs, outputs, timer, bodies, prefix, targets);
  } catch (...) {
    // Whatever failed, no value may keep caller memory (a later run would write into it).
    if (borrowed_) release_borrowed();
    throw;
  }
  if (borrowed_) hand_back_borrowed(outputs, targets);
}

void State::evaluate(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
                     const NodeTimer* timer, BodyTimer* bodies, const std::string* prefix,
                     const std::vector<Tensor>* targets) {
  check_inputs(inputs);
  const Graph& g = plan_->graph();
  // The caller's tensors of the last run and this State's views of other values hold references
  // to buffers that are about to be rewritten: release them so those buffers are reused in
  // place (a shared buffer would be reallocated).
  outputs.resize(g.outputs().size());
  for (Tensor& t : outputs) t.drop_storage();
  for (int id : order_without_consts_) {
    size_t first = first_value_[static_cast<size_t>(id)];
    for (size_t s = 0; s < values_[static_cast<size_t>(id)].size(); s++) {
      if (kinds_[first + s] == OutputKind::HandedOver)
        values_[static_cast<size_t>(id)][s].drop_storage();
      kinds_[first + s] = OutputKind::None;
    }
  }
  borrowed_ = false;
  for (size_t i = 0; i < inputs.size(); i++) {
    values_[static_cast<size_t>(g.inputs()[i].node)][0] = inputs[i];
    borrowed_ = borrowed_ || inputs[i].is_borrowed();
  }
  // An output computed by a node starts the run as its target: EvalContext::output reuses a
  // borrowed buffer that is large enough (Tensor::reset), so the op writes there. An output
  // that was a view of another value in the last run (a Flatten or Reshape at the end) gives
  // its target to the value it views, when that one has the same size.
  for (size_t i = 0; targets && i < targets->size(); i++) {
    const Tensor& target = (*targets)[i];
    if (target.is_null()) continue;
    size_t vi = value_index(g.outputs()[i]);
    for (size_t hops = 0; values_info_[vi].source >= 0 && hops < values_info_.size(); hops++)
      vi = static_cast<size_t>(values_info_[vi].source);
    const Value& v = values_info_[vi];
    if (!v.computed || (vi != value_index(g.outputs()[i]) && v.bytes != target.nbytes())) continue;
    values_[static_cast<size_t>(v.node)][vi - first_value_[static_cast<size_t>(v.node)]] = target;
    borrowed_ = true;
  }
  for (int id : order_without_consts_) {
    check_deadline("running the graph");  // --timeout (core/run_limits.h)
    const Node& n = g.node(id);
    size_t first = first_value_[static_cast<size_t>(id)];
    EvalContext ctx(values_[static_cast<size_t>(id)], &placements_[first], &kinds_[first],
                    &scratch_, op_states_[static_cast<size_t>(id)].get());
    if (bodies) ctx.set_body_timer(bodies, prefix, id);
    try {
      if (timer) {
        auto start = std::chrono::steady_clock::now();
        n.op->eval(ctx, refs_[static_cast<size_t>(id)]);
        (*timer)(id, std::chrono::steady_clock::now() - start);
      } else {
        n.op->eval(ctx, refs_[static_cast<size_t>(id)]);
      }
    } catch (Error& e) {
      scratch_.reset();
      e.with_context(fmt::format("running node {}", g.describe(id)));
      throw;
    } catch (const std::bad_alloc&) {
      scratch_.reset();
      Error e("out of memory");
      e.with_context(fmt::format("running node {}", g.describe(id)));
      throw e;
    } catch (const std::exception& e) {
      // A standard-library failure inside an op (std::length_error, std::out_of_range) is a kiln
      // bug, but the user gets a clear error naming the node, not a terminate().
      scratch_.reset();
      Error err(fmt::format("internal error: {}", e.what()));
      err.with_context(fmt::format("running node {}", g.describe(id)));
      throw err;
    }
    scratch_.reset();
    after_node(id);
  }
  for (size_t i = 0; i < outputs.size(); i++) {
    const Outlet& o = g.outputs()[i];
    Tensor& value = values_[static_cast<size_t>(o.node)][static_cast<size_t>(o.slot)];
    // Never hand the arena out: the next run would overwrite it under the caller's feet.
    if (!arena_.is_null() && value.storage_base() == arena_.storage_base()) {
      value = value.clone();
      layout_stale_ = true;
    }
    outputs[i] = value;
  }
  if (layout_stale_) lay_out();
}

// Outputs that view a borrowed input (caller memory kiln does not own) become copies: the
// caller may free its input once the run returns. Outputs written into their targets stay.
void State::hand_back_borrowed(std::vector<Tensor>& outputs, const std::vector<Tensor>* targets) {
  for (Tensor& out : outputs) {
    if (!out.is_borrowed()) continue;
    bool target = false;
    for (size_t i = 0; targets && i < targets->size(); i++)
      target = target || out.shares_storage_with((*targets)[i]);
    if (!target) out = out.clone();
  }
  release_borrowed();
}

// Checks the node's outputs against the layout: a value larger than planned, made another way
// than when the arena was laid out, or a view into the arena the plan does not know of (its
// buffer could be reused while the view lives: it is copied out) asks for a new layout.
void State::after_node(int id) {
  const Node& n = plan_->graph().node(id);
  size_t first = first_value_[static_cast<size_t>(id)];
  const char* arena = static_cast<const char*>(arena_.storage_base());
  std::vector<Tensor>& outs = values_[static_cast<size_t>(id)];
  for (size_t s = 0; s < outs.size(); s++) {
    size_t vi = first + s;
    Value& v = values_info_[vi];
    Tensor& t = outs[s];
    OutputKind kind = kinds_[vi];
    if (kind != v.layout_kind) layout_stale_ = true;
    if (!t.is_null() && t.nbytes() > v.bytes) {
      v.bytes = t.nbytes();
      layout_stale_ = true;
    }
    bool in_arena = arena && t.storage_base() == arena;
    if (kind != OutputKind::HandedOver) v.source = -1;  // views nothing this run
    if (kind == OutputKind::Written) {
      if (placements_[vi].arena && !in_arena) layout_stale_ = true;  // outgrew its slot
      continue;
    }
    if (kind != OutputKind::HandedOver || t.is_null()) continue;
    // Which input's buffer does it view? (In the arena, every value shares one storage: the
    // view's bytes must lie in that input's slot.)
    v.source = -1;
    for (const Outlet& in : n.inputs) {
      if (!in.present()) continue;
      const Tensor& src = values_[static_cast<size_t>(in.node)][static_cast<size_t>(in.slot)];
      if (!t.shares_storage_with(src)) continue;
      size_t u = value_index(in);
      if (in_arena) {
        const OutputPlacement& home = placements_[static_cast<size_t>(values_info_[u].root)];
        const char* data = static_cast<const char*>(t.raw_data());
        if (!home.arena || data < arena + home.offset ||
            data + t.nbytes() > arena + home.offset + home.capacity)
          continue;
      }
      v.source = static_cast<int>(u);
      break;
    }
    if (in_arena && (v.source < 0 || values_info_[static_cast<size_t>(v.source)].root != v.root)) {
      t = t.clone();
      layout_stale_ = true;
    }
  }
}

void State::lay_out() {
  const int end = static_cast<int>(plan_->order().size());
  // Roots and group lifetimes, in evaluation order (a view comes after what it views).
  std::vector<int> group_last(values_info_.size(), -1);
  for (size_t vi = 0; vi < values_info_.size(); vi++) {
    values_info_[vi].root = static_cast<int>(vi);
    group_last[vi] = values_info_[vi].last;
  }
  for (int id : order_without_consts_) {
    size_t first = first_value_[static_cast<size_t>(id)];
    for (size_t s = 0; s < values_[static_cast<size_t>(id)].size(); s++) {
      size_t vi = first + s;
      Value& v = values_info_[vi];
      v.layout_kind = kinds_[vi];
      if (kinds_[vi] != OutputKind::HandedOver || v.source < 0) continue;
      int root = values_info_[static_cast<size_t>(v.source)].root;
      v.root = root;
      group_last[static_cast<size_t>(root)] =
          std::max(group_last[static_cast<size_t>(root)], v.last);
    }
  }
  // A node that makes a sequence, an optional or a map may keep its inputs as items, past their
  // lifetime: those inputs (their buffers) stay out of the arena.
  const Graph& g = plan_->graph();
  std::vector<char> captured(values_info_.size(), 0);
  for (int id : order_without_consts_) {
    const Node& n = g.node(id);
    bool makes_objects = false;
    for (const Fact& f : n.outputs) makes_objects = makes_objects || is_container(f.dt);
    if (!makes_objects) continue;
    for (const Outlet& in : n.inputs)
      if (in.present()) captured[static_cast<size_t>(values_info_[value_index(in)].root)] = 1;
  }
  // The arena holds values a node writes, of plain data, that die before the run ends (model
  // outputs and what they view keep buffers of their own: the caller holds them).
  std::vector<BufferLife> lives;
  std::vector<size_t> planned;
  for (size_t vi = 0; vi < values_info_.size(); vi++) {
    const Value& v = values_info_[vi];
    const Tensor& t =
        values_[static_cast<size_t>(v.node)][vi - first_value_[static_cast<size_t>(v.node)]];
    bool eligible = v.computed && v.root == static_cast<int>(vi) &&
                    v.layout_kind == OutputKind::Written && !t.is_null() && !is_object(t.dtype()) &&
                    v.bytes > 0 && group_last[vi] < end && !captured[vi];
    if (!eligible) continue;
    lives.push_back({v.bytes, v.first, group_last[vi]});
    planned.push_back(vi);
  }
  MemoryLayout layout = plan_memory(lives, kTensorAlignment);
  std::fill(placements_.begin(), placements_.end(), OutputPlacement{});
  arena_ = layout.arena_bytes > 0
               ? Tensor(DatumType::U8, {static_cast<int64_t>(layout.arena_bytes)})
               : Tensor();
  for (size_t k = 0; k < planned.size(); k++) {
    size_t capacity = (lives[k].bytes + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment;
    placements_[planned[k]] = {&arena_, layout.offsets[k], capacity};
  }
  layout_stale_ = false;
  layouts_++;
}

MemoryStats State::memory_stats() const {
  MemoryStats m;
  m.arena_bytes = arena_.is_null() ? 0 : arena_.nbytes();
  for (size_t vi = 0; vi < values_info_.size(); vi++) {
    const Value& v = values_info_[vi];
    if (!v.computed) continue;
    m.outputs_bytes += v.bytes;
    if (placements_[vi].arena) {
      m.planned_bytes += v.bytes;
      m.planned_values++;
    }
  }
  m.scratch_bytes = scratch_.capacity();
  m.layouts = layouts_;
  return m;
}

std::vector<PlannedValue> State::memory_layout() const {
  // A value's lifetime in the arena extends to the last use of the views sharing its buffer.
  std::vector<int> last(values_info_.size(), -1);
  for (const Value& v : values_info_)
    if (v.root >= 0)
      last[static_cast<size_t>(v.root)] = std::max(last[static_cast<size_t>(v.root)], v.last);
  std::vector<PlannedValue> out;
  for (size_t vi = 0; vi < values_info_.size(); vi++) {
    const OutputPlacement& p = placements_[vi];
    if (!p.arena) continue;
    const Value& v = values_info_[vi];
    int slot = static_cast<int>(vi - first_value_[static_cast<size_t>(v.node)]);
    out.push_back({Outlet{v.node, slot}, p.offset, v.bytes, v.first, std::max(v.first, last[vi])});
  }
  return out;
}

std::vector<Tensor> run_graph(GraphPtr graph, const std::vector<Tensor>& inputs) {
  State state(std::make_shared<Plan>(std::move(graph)));
  return state.run(inputs);
}

}  // namespace kiln
