// Plan and State: running a graph. A Plan fixes the evaluation order once; a State owns the
// buffers of one running instance and reuses them from run to run.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <vector>

#include "core/graph.h"

namespace kiln {

class Plan {
 public:
  explicit Plan(GraphPtr graph);
  const Graph& graph() const { return *graph_; }
  const GraphPtr& graph_ptr() const { return graph_; }
  const std::vector<int>& order() const { return order_; }

 private:
  GraphPtr graph_;
  std::vector<int> order_;
};

using PlanPtr = std::shared_ptr<const Plan>;

// Called after each node ran, with its id and the time it took.
using NodeTimer = std::function<void(int node, std::chrono::nanoseconds elapsed)>;

class State {
 public:
  explicit State(PlanPtr plan);
  // Runs the graph on one tensor per model input, in the graph's input order; returns one
  // tensor per model output. Checks inputs against the input facts (type, rank, dims,
  // consistent symbols) and names the culprit when they do not match.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs);
  // Same, calling `timer` after each node.
  std::vector<Tensor> run_timed(const std::vector<Tensor>& inputs, const NodeTimer& timer);
  // Symbol values bound by the last run's inputs.
  const SymbolValues& symbols() const { return symbols_; }
  const Plan& plan() const { return *plan_; }

 private:
  void check_inputs(const std::vector<Tensor>& inputs);
  PlanPtr plan_;
  std::vector<std::vector<Tensor>> values_;  // per node, per output slot
  std::vector<int> order_without_consts_;
  SymbolValues symbols_;
};

// Convenience: plans and runs a graph once.
std::vector<Tensor> run_graph(GraphPtr graph, const std::vector<Tensor>& inputs);

}  // namespace kiln
