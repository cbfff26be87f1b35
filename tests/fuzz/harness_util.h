// What every harness shares: the limits it runs under and the error filter.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/error.h"
#include "tests/fuzz/harnesses.h"

namespace kiln::fuzz {

// Seconds one input may take from load to outputs (the libFuzzer binaries run with
// -timeout=10: a harness that stops at this deadline with a clear error is not a hang).
inline constexpr double kRunSeconds = 5.0;
// Tensor memory budget of the harness processes (libFuzzer's -rss_limit_mb is 2048).
inline constexpr size_t kMemoryBudget = size_t{1} << 30;
// Inputs up to this many elements in all get random values and run.
inline constexpr int64_t kMaxRunElements = int64_t{1} << 16;


// Limits of one input: init_limits() and a run deadline kRunSeconds from now.
void init_limits_for_input();

// Runs fn(); a kiln::Error is the expected outcome for most inputs and is swallowed. The run
// deadline (kRunSeconds) starts here.
template <typename F>
int guarded(F&& fn) {
  init_limits_for_input();
  try {
    fn();
  } catch (const Error&) {
  }
  return 0;
}

}  // namespace kiln::fuzz
