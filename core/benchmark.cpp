#include "core/benchmark.h"

#include <sys/resource.h>

#include <chrono>

#include "base/error.h"

namespace kiln {

namespace {
using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}
double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto sec = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec * 1e-6; };
  return sec(u.ru_utime) + sec(u.ru_stime);
}
}  // namespace

BenchResult benchmark(const std::function<void()>& run_once, const BenchLimits& limits,
                      const BenchProgress& progress) {
  KILN_ENSURE(limits.max_runs > 0 || limits.max_seconds > 0,
              "benchmark needs a limit: a run count or a time budget");
  BenchResult result;
  auto start = Clock::now();
  auto last_progress = start;
  auto report = [&](size_t runs) {
    if (!progress) return;
    auto now = Clock::now();
    if (now - last_progress < std::chrono::milliseconds(200)) return;
    last_progress = now;
    progress(seconds_since(start), runs);
  };
  while (result.warmup_runs < limits.warmup_runs || seconds_since(start) < limits.warmup_seconds) {
    run_once();
    result.warmup_runs++;
    report(0);
  }
  result.warmup_seconds = seconds_since(start);
  auto timed_start = Clock::now();
  const double cpu_start = process_cpu_seconds();
  for (;;) {
    auto t0 = Clock::now();
    run_once();
    result.run_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    report(result.run_ms.size());
    if (limits.max_runs > 0 && result.run_ms.size() >= static_cast<size_t>(limits.max_runs)) break;
    if (limits.max_seconds > 0 && seconds_since(timed_start) >= limits.max_seconds) break;
  }
  result.cpu_seconds = process_cpu_seconds() - cpu_start;
  return result;
}

}  // namespace kiln
