// Threading: how many threads kernels may use for one run, and the pool that runs them. The CLI
// sets the count once (--threads); kernels split their work with parallel_for. Results must not
// depend on the thread count: split so that each output is computed by one task, in a fixed order.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

namespace kiln {

class Pool;

// A set of worker threads for parallel_for and run_team: `threads` threads in all, the calling
// thread included (threads - 1 workers, started at the first job that needs them). A Session owns
// one, so sessions running at the same time in different threads never wait for each other's
// jobs. A pool runs one job at a time: a second thread calling into it while a job runs gets its
// work run inline.
class ThreadPool {
 public:
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;
  int threads() const { return threads_; }

 private:
  friend class PoolScope;
  int threads_;
  std::unique_ptr<Pool> pool_;
};

// Makes `pool` the one parallel_for, run_team and num_threads() use on this thread for the
// scope's lifetime (nullptr: the process-wide default pool); restores the previous one after.
class PoolScope {
 public:
  explicit PoolScope(ThreadPool* pool);
  ~PoolScope();
  PoolScope(const PoolScope&) = delete;
  PoolScope& operator=(const PoolScope&) = delete;

 private:
  Pool* saved_pool_;
  int saved_threads_;
};

// Threads kernels may use on this thread: the size of the pool of the enclosing PoolScope, or the
// process-wide setting (set_num_threads) outside one; at least 1.
int num_threads();
// Sets the process-wide thread count (the default pool's size); n <= 0 restores the default.
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

// Calls fn(begin, end) on disjoint contiguous ranges (chunks) covering [0, tasks), on up to
// `threads` threads (<= 0: num_threads()) of this thread's pool (see PoolScope; the process-wide
// pool by default); the calling thread takes part
// and the call returns when every chunk is done. The cut (plan_chunks) depends only on (tasks,
// threads, grain), never on timing: T = min(threads, tasks / grain) threads (one: fn(0, tasks)
// runs inline), thread t's share is the static split [tasks * t / T, tasks * (t + 1) / T), and
// a share is cut into pieces of halving size (1/2, 1/4, ... of it, the last two equal, each at
// least `grain` tasks, at most kMaxPieces). Each thread runs its own share's pieces in order, then
// takes pieces from the end of the other shares: balanced threads run exactly the static split
// (each touches the same part of the data from one job to the next, which stays in its cache),
// and a thread that is slowed down hands over its last, smallest pieces. Which thread runs a chunk
// thus depends on timing, and one thread may run several chunks one after the other: per-thread
// scratch must be keyed by current_thread_slot(), never by the range.
// Nested calls (from inside fn) and calls racing from another thread run inline. fn must not
// throw.
void parallel_for(int64_t tasks, RangeFn fn, int threads = 0, int64_t grain = 1);

// Pieces a thread's share is cut into at most: the smallest is then 1/2^(kMaxPieces-1) of it.
constexpr int kMaxPieces = 8;

// The threads a parallel_for(..., threads) call may use: `threads`, or num_threads() if <= 0.
int effective_threads(int threads);

// The cut of parallel_for(tasks, fn, threads, grain): returns the thread count T; chunk c is
// [bounds[c], bounds[c + 1]) and thread t's share is chunks [shares[t], shares[t + 1]).
// `bounds` must hold kMaxPieces * T + 1 values and `shares` T + 1 (T <= effective_threads).
int plan_chunks(int64_t tasks, int threads, int64_t grain, int64_t* bounds, int* shares);

// Inside fn of a parallel_for with effective_threads(threads) == T: the running thread's slot,
// in [0, T); no two threads run chunks of one job under the same slot (the caller is 0, pool
// worker w is w + 1; an inline run is 0). So a caller may lend scratch indexed by slot, sized for
// T before the call. Outside parallel_for: 0.
int current_thread_slot();

// Work below this many units (floats read or written) per thread runs on fewer threads: waking
// a sleeping worker costs tens of microseconds (a spinning one well under one), as much as
// streaming ~32K floats through a cheap kernel.
constexpr int64_t kMinParallelWork = 32768;

// parallel_for over `tasks` items of `work_per_task` units each (e.g. the rows of a softmax),
// on at most one thread per kMinParallelWork units of the whole job (so small jobs run inline),
// in pieces of at least kMinPieceWork units.
void parallel_for_work(int64_t tasks, int64_t work_per_task, RangeFn fn);
constexpr int64_t kMinPieceWork = 4096;

// A team: team.size() threads that run one function together (run_team) and wait for each other
// between the steps of a computation that each of them works a part of (barrier). For loops of
// many short steps (an RNN's time steps, a few microseconds each): a barrier costs well under a
// microsecond while every member is on a core, where one parallel_for per step would cost a
// wake-up and a stealing round each.
class Team {
 public:
  // Members at most (run_team makes no bigger team).
  static constexpr int kMaxMembers = 64;
  explicit Team(int size) : size_(size) {}
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;
  int size() const { return size_; }
  // Returns once every member has called it (for the n-th time, every member calling it the same
  // number of times); what any member wrote before its call is then visible to every member. A
  // member spins a few tens of microseconds, then sleeps until the last one arrives (so a team
  // bigger than the free cores, or a member descheduled by another process, is slow but goes on).
  void barrier();
  // One step of work shared by the team: every member calls it (member: its own index) with the
  // same tasks and grain, the same calls in the same order; it runs fn(begin, end) on pieces of
  // `grain` tasks (the last one shorter) covering [0, tasks) once, and returns when all are done,
  // their writes visible to every member. Member m owns the pieces of the static split
  // [pieces * m / size, pieces * (m + 1) / size) and runs them front to back, then takes pieces
  // from the back of the other shares: balanced members each run their own share from step to
  // step (the same data stays in their caches), and the pieces of a member that is late or
  // descheduled are taken over, so a step never waits for a member that has not started. Which
  // member runs a piece thus depends on timing: fn must compute each task the same way wherever
  // it runs. Waiting spins, then sleeps, as in barrier(). fn must not throw.
  void for_each(int member, int64_t tasks, RangeFn fn, int64_t grain = 1);

 private:
  // A share: call (bits 32..63) | front (16..31) | back (0..15), in pieces.
  struct alignas(64) Share {
    std::atomic<uint64_t> word{0};
  };
  // What a member knows of its own calls to for_each (only it reads or writes it).
  struct alignas(64) Progress {
    uint32_t calls = 0;
    uint32_t pieces = 0;  // pieces of every call so far (wraps)
  };
  bool claim(int share, uint32_t call, int64_t pieces, bool from_front, int64_t& piece);
  void report(uint32_t done, uint32_t target);
  void wait_for_pieces(uint32_t target);
  const int size_;
  alignas(64) std::atomic<int> arrived_{0};
  alignas(64) std::atomic<uint32_t> phase_{0};
  std::atomic<int> sleepers_{0};
  alignas(64) std::atomic<uint32_t> done_{0};  // pieces done over every call (wraps)
  std::atomic<int> done_sleepers_{0};
  Share shares_[kMaxMembers];
  Progress progress_[kMaxMembers];
};

// A non-owning reference to a callable `void(int member, Team& team)`; see RangeFn.
class TeamFn {
 public:
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, TeamFn>>>
  TeamFn(F&& fn)  // NOLINT: implicit, so callers pass lambdas
      : object_(const_cast<void*>(static_cast<const void*>(&fn))),
        call_([](void* o, int member, Team& team) {
          (*static_cast<std::remove_reference_t<F>*>(o))(member, team);
        }) {}
  void operator()(int member, Team& team) const { call_(object_, member, team); }

 private:
  void* object_;
  void (*call_)(void*, int, Team&);
};

// Runs fn(member, team) for every member in [0, team.size()) at the same time, each on its own
// thread (the caller is member 0, pool workers the others), and returns when all are done. The
// size is min(effective_threads(threads), Team::kMaxMembers), or 1 (fn(0, team) inline, its
// barriers free) when called from inside parallel_for or run_team or while another thread uses the
// pool: never more members than threads that are free to run them, so barriers cannot deadlock. The
// caller splits the work by (member, team.size()) in a fixed way, so results depend on neither
// (scratch is keyed by the member, not by current_thread_slot()). Nested parallel_for calls inside
// fn run inline. Workers are woken once per call (tens of microseconds when they sleep): use it for
// a whole sequence of steps, not per step. fn must not throw.
void run_team(int threads, TeamFn fn);

}  // namespace kiln
