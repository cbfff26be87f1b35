// Session: one running instance of an optimized model. The Plan (graph, evaluation order,
// lifetimes) is immutable and shared: any number of sessions run it at the same time, each from
// its own thread. Everything that changes while a model runs is the session's: its State (the
// arena, kernel scratch, the ops' states) and its thread pool.
#pragma once

#include <memory>
#include <vector>

#include "base/threading.h"
#include "core/state.h"

namespace kiln {

struct SessionOptions {
  // Threads the session's kernels use, the calling thread included (<= 0: num_threads() when
  // the session is made).
  int threads = 0;
};

class Session {
 public:
  explicit Session(PlanPtr plan, SessionOptions options = {});
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // As State::run, on this session's threads.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs);
  void run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs);
  void run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
           const std::vector<Tensor>& targets);
  std::vector<Tensor> run_timed(const std::vector<Tensor>& inputs, const NodeTimer& timer,
                                BodyTimer* bodies = nullptr);

  int threads() const { return pool_.threads(); }
  const SymbolValues& symbols() const { return state_.symbols(); }
  const Plan& plan() const { return state_.plan(); }
  const State& state() const { return state_; }
  MemoryStats memory_stats() const { return state_.memory_stats(); }

 private:
  ThreadPool pool_;
  State state_;
};

}  // namespace kiln
