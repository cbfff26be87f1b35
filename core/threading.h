// Threading: how many threads kernels may use for one run, and the pool that runs them. The CLI
// sets the count once (--threads); kernels split their work with parallel_for. Results must not
// depend on the thread count: split so that each output is computed by one task, in a fixed order.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

namespace kiln {

// Threads kernels may use; at least 1.
int num_threads();
// Sets the thread count; n <= 0 restores the default.
void set_num_threads(int n);
// The default: the number of physical cores this process may run on.
int default_num_threads();

// A non-owning reference to a callable `void(int64_t begin, int64_t end)`: unlike std::function
// it never allocates, so kernels may call parallel_for in a steady-state run. The callable must
// outlive the call it is passed to (a lambda argument does).
class RangeFn {
 public:
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, RangeFn>>>
  RangeFn(F&& fn)  // NOLINT: implicit, so callers pass lambdas
      : object_(const_cast<void*>(static_cast<const void*>(&fn))),
        call_([](void* o, int64_t b, int64_t e) {
          (*static_cast<std::remove_reference_t<F>*>(o))(b, e);
        }) {}
  void operator()(int64_t begin, int64_t end) const { call_(object_, begin, end); }

 private:
  void* object_;
  void (*call_)(void*, int64_t, int64_t);
};

// Calls fn(begin, end) on disjoint ranges covering [0, tasks), on up to `threads` threads
// (<= 0: num_threads()) of a process-wide pool; the calling thread takes part and the call
// returns when every range is done. Ranges are contiguous and at most `threads` of them; any
// thread may run any range (the caller takes what idle workers have not), so per-thread scratch
// must not depend on the range (see kernels' grow-only buffers).
// Nested calls (from inside fn) and calls racing from another thread run serially. fn must not
// throw.
void parallel_for(int64_t tasks, RangeFn fn, int threads = 0);

// Work below this many units (floats read or written) per thread runs on fewer threads: waking
// a worker costs microseconds, as much as streaming ~32K floats through a cheap kernel.
constexpr int64_t kMinParallelWork = 32768;

// parallel_for over `tasks` items of `work_per_task` units each (e.g. the rows of a softmax),
// on at most one thread per kMinParallelWork units of the whole job (so small jobs run inline).
void parallel_for_work(int64_t tasks, int64_t work_per_task, RangeFn fn);

}  // namespace kiln
