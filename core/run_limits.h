// Limits that keep hostile or runaway models from hanging or exhausting the machine: a cap on
// tensor ranks, a process-wide budget on tensor memory, and a deadline for running. Each is
// checked where the work happens (Fact and shape inference, Storage, State and Loop/Scan), so an
// input that exceeds one gets a kiln::Error instead of the OOM killer or an endless loop.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace kiln {

// Ranks above this are refused as "too large" (numpy allows 64 dims, ONNX Runtime 2^31 bytes
// of shape; a rank in the thousands only comes from a hostile or corrupt file, and symbolic
// shape arithmetic on it would cost quadratic time and memory).
inline constexpr int64_t kMaxRank = 1024;
// Throws a kiln::Error naming `what` when rank is negative or above kMaxRank.
void check_rank(int64_t rank, const char* what);

// Window attributes (kernel dims, strides, dilations, pads) and conv groups above this (2^31)
// are refused: it keeps their arithmetic (effective kernels, padded and output sizes, channel
// products) far from int64 overflow whatever a hostile model declares; no real model comes near.
inline constexpr int64_t kMaxWindowAttribute = int64_t{1} << 31;

// Memory budget: the bytes of every live tensor Storage and kernel scratch block (protobuf
// buffers excluded). 0 = no budget (the default). An allocation that would pass the budget
// throws "too large" before allocating.
void set_memory_budget(size_t bytes);
size_t memory_budget();
// Bytes of tensor storage alive now.
size_t memory_in_use();
// Called by Storage and ScratchArena: charge throws when the budget would be exceeded; `what`
// names the allocation in that error.
void charge_memory(size_t bytes, const char* what = "tensor");
void release_memory(size_t bytes);

// Run deadline: State checks it between nodes and Loop / Scan once per iteration; past it they
// throw "timed out". Process-wide (set by `kiln run|bench --timeout`, the fuzz harnesses).
void set_run_deadline(std::chrono::steady_clock::time_point deadline);
void set_run_timeout(double seconds);  // deadline = now + seconds; <= 0 clears it
void clear_run_deadline();

namespace detail {
extern std::atomic<int64_t> g_deadline_ns;  // steady_clock nanoseconds, 0 = none
[[noreturn]] void throw_timed_out(const char* where);
}  // namespace detail

// One relaxed load when no deadline is set (the common case): cheap enough between nodes.
inline void check_deadline(const char* where) {
  const int64_t d = detail::g_deadline_ns.load(std::memory_order_relaxed);
  if (d == 0) return;
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now().time_since_epoch())
                          .count();
  if (now > d) detail::throw_timed_out(where);
}

}  // namespace kiln
