// Several sessions of one loaded model running at the same time, each from its own thread (a
// server answering requests, `kiln bench --concurrent N`): their latencies, the total
// throughput, and whether every run gave bitwise the same outputs as a reference run.
#pragma once

#include <string>
#include <vector>

#include "core/benchmark.h"
#include "core/session.h"

namespace kiln {

struct ConcurrentOptions {
  int sessions = 2;
  int threads = 1;     // per session
  BenchLimits limits;  // per session: warm-up, then timed runs
};

struct ConcurrentResult {
  std::vector<std::vector<double>> run_ms;  // per session, each timed run
  size_t runs = 0;                          // timed runs in all
  double wall_seconds = 0;    // from the common start to the end of the last session's runs
  double throughput_ips = 0;  // runs / wall_seconds
  bool identical = true;      // every run's outputs bitwise equal to the reference
  std::string mismatch;       // the first difference, when not
};

// Bitwise equality of two tensors: type, shape and bytes (NaNs of the same bits are equal;
// object types compare by value).
bool bitwise_equal(const Tensor& a, const Tensor& b);

// Runs options.sessions sessions of `plan` on `inputs`, each in a thread of its own with a
// thread pool of options.threads: every session warms up, they start their timed runs together,
// and each run's outputs are compared with `reference` (outside the timed part). Errors in a
// session are rethrown.
ConcurrentResult run_concurrent(const PlanPtr& plan, const std::vector<Tensor>& inputs,
                                const std::vector<Tensor>& reference,
                                const ConcurrentOptions& options);

}  // namespace kiln
