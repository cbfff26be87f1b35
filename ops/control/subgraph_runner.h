// Shared by the control-flow ops (If, Loop, Scan, SequenceMap): analysing a body graph for given
// input facts and running it on tensors. The analyses are cached in the runner (immutable graphs,
// shared by every session: a cache that cannot change results); the States that run them belong
// to a session (BodyStates, the op's OpState), so sessions never share buffers.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "core/graph.h"
#include "core/state.h"

namespace kiln::ops {

class SubgraphRunner {
 public:
  explicit SubgraphRunner(GraphPtr body);
  const GraphPtr& body() const { return body_; }
  size_t num_inputs() const { return body_->inputs().size(); }
  size_t num_outputs() const { return body_->outputs().size(); }

  // Optimizes a copy of an analysed body (the optimize stage's passes, supplied by
  // passes/loop_bodies; ops cannot call the pipeline). With one set, a session runs the
  // optimized body for input facts it has met twice: a body whose facts change every iteration
  // (a growing carried value) is not optimized for each of them.
  using Optimizer = std::function<void(Graph&)>;
  void set_optimizer(Optimizer optimizer) { optimizer_ = std::move(optimizer); }
  bool optimizes() const { return static_cast<bool>(optimizer_); }

  // Output facts of the body when its inputs have these facts (analyses a copy).
  std::vector<Fact> analyse(const std::vector<Fact>& input_facts) const;
  // The body analysed for these input facts (for cost and printing).
  GraphPtr analysed_graph(const std::vector<Fact>& input_facts) const;

  // A session's States of the body, one per input facts it ran with (most recent first).
  class Runs {
   public:
    Runs() = default;
    Runs(Runs&&) = default;
    Runs& operator=(Runs&&) = default;

   private:
    friend class SubgraphRunner;
    struct Entry {
      std::vector<Fact> facts;
      GraphPtr graph;
      std::unique_ptr<State> state;
      uint32_t hits = 0;
      bool optimized = false;
    };
    std::deque<Entry> entries_;
  };
  // Runs the body on these inputs, one per body input, with the session's `runs`; its nodes
  // report their times to `timing` when it has a timer (kiln profile).
  std::vector<Tensor> run(Runs& runs, const std::vector<Tensor>& inputs,
                          const BodyTiming& timing = {}) const;

 private:
  GraphPtr analysed(const std::vector<Fact>& facts) const;
  // Swaps the entry's State for one of the optimized body, once (on its second use).
  void maybe_optimize(Runs::Entry& entry) const;

  GraphPtr body_;
  Optimizer optimizer_;
  // Analyses so far (facts -> analysed body) and which body inputs the last one had constant:
  // a run treats those inputs as constants, so the body folds what they feed.
  struct Analysis {
    std::vector<Fact> facts;
    GraphPtr graph;
  };
  mutable std::mutex mutex_;
  mutable std::deque<Analysis> analyses_;
  mutable std::vector<bool> constant_inputs_;
};

// The OpState of a control-flow op: one SubgraphRunner::Runs per body.
class BodyStates : public OpState {
 public:
  explicit BodyStates(size_t bodies) : runs_(bodies) {}
  SubgraphRunner::Runs& at(size_t body) { return runs_.at(body); }

 private:
  std::vector<SubgraphRunner::Runs> runs_;
};

// The fact with its value and symbolic value dropped (for values that change between runs).
Fact without_value(Fact fact);
// Generalizes `a` so that it also describes `b`: same type and rank required (throws with
// `what` otherwise), dims that differ become fresh symbols.
Fact merge_facts(const Fact& a, const Fact& b, const std::string& what);

// The slice of `t` at `index` along `axis`, without that axis (a copy).
Tensor take_along(const Tensor& t, size_t axis, int64_t index);
// Writes `slice` (the shape of `out` without `axis`) at `index` along `axis` of `out`.
void put_along(Tensor& out, size_t axis, int64_t index, const Tensor& slice);

}  // namespace kiln::ops
