// Plan and State: running a graph. A Plan fixes the evaluation order and the lifetime of every
// value once; a State owns the buffers of one running instance: one arena laid out from the
// value lifetimes (core/memory_plan.h), so a steady-state run allocates nothing.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <vector>

#include "core/graph.h"
#include "core/memory_plan.h"

namespace kiln {

class Plan {
 public:
  explicit Plan(GraphPtr graph);
  const Graph& graph() const { return *graph_; }
  const GraphPtr& graph_ptr() const { return graph_; }
  const std::vector<int>& order() const { return order_; }
  // Position of a node in order() (its "step"), -1 when the outputs do not need it.
  int step(int node) const { return step_[static_cast<size_t>(node)]; }
  // The last step that reads this outlet: order().size() for model outputs (they live past the
  // run), the step of its own node when nothing reads it, -1 when its node is not planned.
  int last_use(Outlet o) const {
    return last_use_[static_cast<size_t>(o.node)][static_cast<size_t>(o.slot)];
  }

 private:
  GraphPtr graph_;
  std::vector<int> order_;
  std::vector<int> step_;                   // per node
  std::vector<std::vector<int>> last_use_;  // per node, per output slot
};

using PlanPtr = std::shared_ptr<const Plan>;

// Called after each node ran, with its id and the time it took.
using NodeTimer = std::function<void(int node, std::chrono::nanoseconds elapsed)>;

// What the memory plan of a State does with the values of its last run.
struct MemoryStats {
  size_t arena_bytes = 0;     // the one arena the planned values share
  size_t planned_bytes = 0;   // sum of the sizes of the values placed in the arena
  size_t planned_values = 0;  // how many
  size_t outputs_bytes = 0;   // sum of the sizes of every node output (views and model outputs
                              // included): what keeping each output in its own buffer costs
  size_t scratch_bytes = 0;   // kernels' temporary memory (ScratchArena)
  int layouts = 0;            // arena layouts so far (1 after the first run, more when sizes grew)
};

// One value of the memory plan: its place in the arena and the steps (positions in
// Plan::order) from the one that writes it to the last one that reads it or a view of it.
struct PlannedValue {
  Outlet outlet;
  size_t offset = 0, bytes = 0;
  int first = 0, last = 0;
};

class State {
 public:
  explicit State(PlanPtr plan);
  ~State();
  State(const State&) = delete;
  State& operator=(const State&) = delete;

  // Runs the graph on one tensor per model input, in the graph's input order; returns one
  // tensor per model output. Checks inputs against the input facts (type, rank, dims,
  // consistent symbols) and names the culprit when they do not match. The first run measures
  // every value and lays the arena out; later runs reuse it (and lay it out again when a
  // value grows). Returned outputs stay valid: they never live in the arena.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs);
  // Same, writing the outputs into `outputs` (resized to the output count). When `outputs`
  // holds the previous run's outputs, their buffers are reused: a steady-state run through
  // this overload allocates nothing.
  void run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs);
  // Same, with one target per model output (null: none): a target is caller memory
  // (Tensor::borrow) that the op computing the output writes into, with no copy, when it writes
  // a buffer of its own of that type and at most that size; outputs[i] then shares the
  // target's storage (compare raw_data() to see; otherwise outputs[i] is a buffer of kiln's).
  // Borrowed inputs and targets are released before this returns or throws: the State keeps no
  // reference to caller memory between runs.
  void run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
           const std::vector<Tensor>& targets);
  // Same, calling `timer` after each node; with `bodies`, the nodes inside the bodies of its
  // control-flow nodes report to it too, their paths starting with `prefix` (core/op.h).
  std::vector<Tensor> run_timed(const std::vector<Tensor>& inputs, const NodeTimer& timer,
                                BodyTimer* bodies = nullptr, const std::string& prefix = {});
  // Symbol values bound by the last run's inputs.
  const SymbolValues& symbols() const { return symbols_; }
  const Plan& plan() const { return *plan_; }
  MemoryStats memory_stats() const;
  // The values the current arena layout places, in value order (empty before the first run).
  std::vector<PlannedValue> memory_layout() const;
  // A node's outputs as they stand: read from a NodeTimer, right after the node ran, they are
  // its values of this run (later nodes may reuse their arena memory).
  const std::vector<Tensor>& node_values(int node) const {
    return values_[static_cast<size_t>(node)];
  }

 private:
  struct Value;  // per node output: lifetime, size, placement
  struct InputDim;
  void check_inputs(const std::vector<Tensor>& inputs);
  void run_into(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
                const NodeTimer* timer, BodyTimer* bodies = nullptr,
                const std::string* prefix = nullptr, const std::vector<Tensor>* targets = nullptr);
  void evaluate(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
                const NodeTimer* timer, BodyTimer* bodies, const std::string* prefix,
                const std::vector<Tensor>* targets);
  void release_borrowed();
  void hand_back_borrowed(std::vector<Tensor>& outputs, const std::vector<Tensor>* targets);
  void after_node(int id);
  void lay_out();
  size_t value_index(Outlet o) const {
    return first_value_[static_cast<size_t>(o.node)] + static_cast<size_t>(o.slot);
  }

  PlanPtr plan_;
  std::vector<std::vector<Tensor>> values_;  // per node, per output slot
  std::vector<int> order_without_consts_;
  std::vector<TensorRefs> refs_;  // per node: pointers into values_ for its inputs
  SymbolValues symbols_;
  std::vector<InputDim> input_dims_;  // how to check each input dim
  std::vector<int64_t> symbol_values_;
  std::vector<char> symbol_bound_;
  std::vector<std::string> symbol_names_;

  std::vector<size_t> first_value_;  // per node: index of its slot 0 in values_info_
  std::vector<Value> values_info_;
  std::vector<OutputPlacement> placements_;  // per value (contiguous per node)
  std::vector<OutputKind> kinds_;            // per value, how its op made it in the last run
  std::vector<std::unique_ptr<OpState>> op_states_;  // per node, what its op keeps between runs
  Tensor arena_;                                     // u8, the planned values' memory
  bool layout_stale_ = true;
  bool borrowed_ = false;  // this run's inputs or targets include caller memory
  int layouts_ = 0;
  ScratchArena scratch_;
};

// Convenience: plans and runs a graph once.
std::vector<Tensor> run_graph(GraphPtr graph, const std::vector<Tensor>& inputs);

}  // namespace kiln
