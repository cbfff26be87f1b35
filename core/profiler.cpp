#include "core/profiler.h"

#include <numeric>

#include "base/error.h"

namespace kiln {

double ProfileResult::mean_run_ms() const {
  if (run_ms.empty()) return 0;
  return std::accumulate(run_ms.begin(), run_ms.end(), 0.0) / static_cast<double>(run_ms.size());
}

double ProfileResult::nodes_total_ms() const {
  return std::accumulate(node_ms.begin(), node_ms.end(), 0.0);
}

ProfileResult profile_state(Session& state, const std::vector<Tensor>& inputs,
                            const ProfileLimits& limits, bool record_events,
                            const ProfileProgress& progress) {
  KILN_ENSURE(limits.max_runs > 0 || limits.max_seconds > 0,
              "profiling needs a limit: a run count or a time budget");
  using Clock = std::chrono::steady_clock;
  const Graph& g = state.plan().graph();
  ProfileResult result;
  result.node_ms.assign(g.size(), 0.0);
  std::vector<double> total_ns(g.size(), 0.0);
  std::vector<bool> seen(g.size(), false);
  auto start = Clock::now();
  auto seconds_since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  for (int i = 0; i < limits.warmup_runs; i++) {
    state.run(inputs);
    if (progress) progress(seconds_since(start), 0);
  }

  auto origin = Clock::now();
  int run = 0;
  NodeTimer timer = [&](int node, std::chrono::nanoseconds elapsed) {
    auto idx = static_cast<size_t>(node);
    total_ns[idx] += static_cast<double>(elapsed.count());
    if (run == 0 && !seen[idx]) {
      seen[idx] = true;
      result.nodes.push_back(node);
    }
    if (record_events) {
      double end_us = std::chrono::duration<double, std::micro>(Clock::now() - origin).count();
      double dur_us = static_cast<double>(elapsed.count()) / 1000.0;
      result.events.push_back({node, run, end_us - dur_us, dur_us});
    }
  };
  for (;;) {
    auto t0 = Clock::now();
    state.run_timed(inputs, timer);
    result.run_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    run++;
    if (progress) progress(seconds_since(start), static_cast<size_t>(run));
    if (limits.max_runs > 0 && run >= limits.max_runs) break;
    if (limits.max_seconds > 0 &&
        std::chrono::duration<double>(Clock::now() - origin).count() >= limits.max_seconds)
      break;
  }
  result.runs = run;
  for (size_t i = 0; i < g.size(); i++) result.node_ms[i] = total_ns[i] / 1e6 / run;
  return result;
}

}  // namespace kiln
