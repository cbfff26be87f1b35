#include "tests/fuzz/harness_util.h"

#include <spdlog/spdlog.h>

#include "core/run_limits.h"
#include "base/threading.h"
#include "tests/fuzz/harnesses.h"

namespace kiln::fuzz {

void init_limits() {
  static bool done = false;
  if (done) return;
  done = true;
  set_memory_budget(kMemoryBudget);
  set_num_threads(1);
  spdlog::set_level(spdlog::level::off);
}

void init_limits_for_input() {
  init_limits();
  set_run_timeout(kRunSeconds);
}

}  // namespace kiln::fuzz
