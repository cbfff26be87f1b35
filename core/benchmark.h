// The timing loop of `kiln bench`: warm-up, then timed runs until a run count or a time budget
// is reached. Times are wall-clock (steady_clock) per call of the function under test, plus the
// process's CPU time (getrusage: user + system, all threads) over the timed runs.
#pragma once

#include <functional>
#include <vector>

namespace kiln {

struct BenchLimits {
  int warmup_runs = 3;        // untimed runs first...
  double warmup_seconds = 0;  // ...and keep warming up until this much time has passed
  int max_runs = 100;         // stop after this many timed runs (<= 0: no limit)...
  double max_seconds = 5;     // ...or once this much time has passed (<= 0: no limit)
};

struct BenchResult {
  std::vector<double> run_ms;  // one sample per timed run, in order
  double cpu_seconds = 0;      // process CPU time (all threads) spent during the timed runs
  int warmup_runs = 0;
  double warmup_seconds = 0;
};

// Calls `progress(elapsed_seconds, runs_done)` now and then (for a progress indicator).
using BenchProgress = std::function<void(double elapsed_seconds, size_t runs)>;

// Runs `run_once` per the limits; at least one timed run always happens. Throws when neither
// max_runs nor max_seconds limits the loop.
BenchResult benchmark(const std::function<void()>& run_once, const BenchLimits& limits,
                      const BenchProgress& progress = nullptr);

}  // namespace kiln
