// Threading: how many threads kernels may use for one run, and the pool that runs them. The CLI
// sets the count once (--threads); kernels split their work with parallel_for. Results must not
// depend on the thread count: split so that each output is computed by one task, in a fixed order.
#pragma once

#include <cstdint>
#include <functional>

namespace kiln {

// Threads kernels may use; at least 1.
int num_threads();
// Sets the thread count; n <= 0 restores the default.
void set_num_threads(int n);
// The default: the number of physical cores this process may run on.
int default_num_threads();

// Calls fn(begin, end) on disjoint ranges covering [0, tasks), on up to `threads` threads
// (<= 0: num_threads()) of a process-wide pool; the calling thread takes part and the call
// returns when every range is done. Ranges are contiguous and at most `threads` of them.
// Nested calls (from inside fn) and calls racing from another thread run serially. fn must not
// throw.
void parallel_for(int64_t tasks, const std::function<void(int64_t begin, int64_t end)>& fn,
                  int threads = 0);

// Work below this many units (floats read or written) per thread runs on fewer threads: waking
// a worker costs microseconds, as much as streaming ~32K floats through a cheap kernel.
constexpr int64_t kMinParallelWork = 32768;

// parallel_for over `tasks` items of `work_per_task` units each (e.g. the rows of a softmax),
// on at most one thread per kMinParallelWork units of the whole job (so small jobs run inline).
void parallel_for_work(int64_t tasks, int64_t work_per_task,
                       const std::function<void(int64_t begin, int64_t end)>& fn);

}  // namespace kiln
