#include "core/run_limits.h"

#include "base/error.h"

namespace kiln {

namespace {
std::atomic<size_t> g_budget{0};
std::atomic<size_t> g_in_use{0};
std::atomic<double> g_timeout_seconds{0};

std::string mib(size_t bytes) {
  return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
}
}  // namespace

void check_rank(int64_t rank, const char* what) {
  KILN_ENSURE(rank >= 0, "{}: negative rank {}", what, rank);
  KILN_ENSURE(rank <= kMaxRank, "{}: rank {} is too large (kiln supports at most {} dims)", what,
              rank, kMaxRank);
}

void set_memory_budget(size_t bytes) {
  g_budget.store(bytes);
}
size_t memory_budget() {
  return g_budget.load(std::memory_order_relaxed);
}
size_t memory_in_use() {
  return g_in_use.load(std::memory_order_relaxed);
}

void charge_memory(size_t bytes, const char* what) {
  const size_t budget = g_budget.load(std::memory_order_relaxed);
  size_t before = g_in_use.fetch_add(bytes, std::memory_order_relaxed);
  if (budget != 0 && (before + bytes > budget || before + bytes < before)) {
    g_in_use.fetch_sub(bytes, std::memory_order_relaxed);
    fail(
        "{} of {} is too large: {} of tensors and scratch already allocated, the memory budget "
        "is {} (--max-memory)",
        what, mib(bytes), mib(before), mib(budget));
  }
}

void release_memory(size_t bytes) {
  g_in_use.fetch_sub(bytes, std::memory_order_relaxed);
}

namespace detail {
std::atomic<int64_t> g_deadline_ns{0};

void throw_timed_out(const char* where) {
  const double s = g_timeout_seconds.load(std::memory_order_relaxed);
  if (s > 0) fail("timed out after {:g} s (--timeout) in {}", s, where);
  fail("timed out (run deadline passed) in {}", where);
}
}  // namespace detail

void set_run_deadline(std::chrono::steady_clock::time_point deadline) {
  int64_t ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(deadline.time_since_epoch()).count();
  detail::g_deadline_ns.store(ns == 0 ? 1 : ns);
}

void set_run_timeout(double seconds) {
  if (seconds <= 0) {
    clear_run_deadline();
    return;
  }
  g_timeout_seconds.store(seconds);
  set_run_deadline(std::chrono::steady_clock::now() +
                   std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                       std::chrono::duration<double>(seconds)));
}

void clear_run_deadline() {
  detail::g_deadline_ns.store(0);
  g_timeout_seconds.store(0);
}

}  // namespace kiln
