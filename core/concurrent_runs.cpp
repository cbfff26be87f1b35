#include "core/concurrent_runs.h"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>

#include "base/error.h"

namespace kiln {

namespace {
using Clock = std::chrono::steady_clock;
}  // namespace

bool bitwise_equal(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  if (is_object(a.dtype()) || a.dtype() == DatumType::String) return a.equals(b);
  return a.nbytes() == 0 || std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()) == 0;
}

ConcurrentResult run_concurrent(const PlanPtr& plan, const std::vector<Tensor>& inputs,
                                const std::vector<Tensor>& reference,
                                const ConcurrentOptions& options) {
  KILN_ENSURE(options.sessions >= 1, "concurrent runs need at least one session");
  KILN_ENSURE(options.limits.max_runs > 0 || options.limits.max_seconds > 0,
              "concurrent runs need a limit: a run count or a time budget");
  const int n = options.sessions;
  ConcurrentResult result;
  result.run_ms.resize(static_cast<size_t>(n));
  std::vector<Clock::time_point> ends(static_cast<size_t>(n));
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  Clock::time_point start;
  std::mutex mu;
  std::exception_ptr error;
  auto fail_with = [&](std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(mu);
    if (!error) error = e;
  };
  auto body = [&](int s) {
    try {
      Session session(plan, SessionOptions{options.threads});
      std::vector<Tensor> outputs;
      auto check = [&](int run) {
        if (outputs.size() != reference.size()) {
          std::lock_guard<std::mutex> lock(mu);
          if (result.identical) {
            result.identical = false;
            result.mismatch = fmt::format("session {} run {}: {} outputs, expected {}", s, run,
                                          outputs.size(), reference.size());
          }
          return;
        }
        for (size_t i = 0; i < outputs.size(); i++) {
          if (bitwise_equal(outputs[i], reference[i])) continue;
          std::lock_guard<std::mutex> lock(mu);
          if (result.identical) {
            result.identical = false;
            result.mismatch = fmt::format(
                "session {} run {}: output {} differs from the single-session run", s, run, i);
          }
          return;
        }
      };
      for (int w = 0; w < options.limits.warmup_runs; w++) {
        session.run(inputs, outputs);
        check(-1 - w);
      }
      // Every session starts its timed runs at once.
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      auto& times = result.run_ms[static_cast<size_t>(s)];
      for (int run = 0;; run++) {
        const auto t0 = Clock::now();
        session.run(inputs, outputs);
        const auto t1 = Clock::now();
        times.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        check(run);
        if (options.limits.max_runs > 0 && run + 1 >= options.limits.max_runs) break;
        if (options.limits.max_seconds > 0 &&
            std::chrono::duration<double>(t1 - start).count() >= options.limits.max_seconds)
          break;
      }
      ends[static_cast<size_t>(s)] = Clock::now();
    } catch (...) {
      fail_with(std::current_exception());
      ready.fetch_add(1);  // (harmless when counted already: the start only waits for n)
    }
  };
  std::vector<std::thread> threads;
  for (int s = 0; s < n; s++) threads.emplace_back(body, s);
  while (ready.load() < n) std::this_thread::yield();
  start = Clock::now();
  go.store(true, std::memory_order_release);
  for (auto& t : threads) t.join();
  if (error) std::rethrow_exception(error);
  Clock::time_point last = start;
  for (size_t s = 0; s < ends.size(); s++) {
    last = std::max(last, ends[s]);
    result.runs += result.run_ms[s].size();
  }
  result.wall_seconds = std::chrono::duration<double>(last - start).count();
  result.throughput_ips =
      result.wall_seconds > 0 ? static_cast<double>(result.runs) / result.wall_seconds : 0;
  return result;
}

}  // namespace kiln
