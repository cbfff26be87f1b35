#include "base/threading.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace kiln {

namespace {

std::atomic<int> g_threads{0};

// Physical cores among the CPUs this process may run on: distinct (package, core) pairs from
// sysfs; falls back to the logical CPU count.
int count_physical_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) {
    unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : static_cast<int>(n);
  }
  std::set<std::pair<std::string, std::string>> cores;
  int logical = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
    if (!CPU_ISSET(cpu, &set)) continue;
    logical++;
    std::string base = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    std::ifstream pkg(base + "physical_package_id"), core(base + "core_id");
    std::string p, c;
    if (!(pkg >> p) || !(core >> c)) return logical > 0 ? CPU_COUNT(&set) : 1;
    cores.emplace(p, c);
  }
  return cores.empty() ? 1 : static_cast<int>(cores.size());
}

// The running thread's slot (see current_thread_slot) and whether it is a pool thread or a caller
// inside a job (then parallel_for runs inline).
thread_local int t_slot = 0;
thread_local bool t_in_pool = false;

// Sets the slot for a scope and restores it after.
class SlotScope {
 public:
  explicit SlotScope(int slot) : saved_(t_slot) { t_slot = slot; }
  ~SlotScope() { t_slot = saved_; }
  SlotScope(const SlotScope&) = delete;
  SlotScope& operator=(const SlotScope&) = delete;

 private:
  int saved_;
};

// Each thread slot of a job owns a share of its chunks (see parallel_for). The owner takes its
// chunks from the front, in order; a thread whose share is empty takes chunks from the back of
// the fullest other share. A share is one word, so one compare-and-swap checks and claims:
// threads (bits 48..63) | 0 (32..47) | front (16..31) | back (0..15), chunk indices of the job.
constexpr int kMaxThreads = 256;
constexpr int kMaxChunks = kMaxPieces * kMaxThreads;
constexpr uint64_t pack_share(int threads, int front, int back) {
  return static_cast<uint64_t>(threads) << 48 | static_cast<uint64_t>(front) << 16 |
         static_cast<uint64_t>(back);
}
constexpr int share_threads(uint64_t v) {
  return static_cast<int>(v >> 48);
}
constexpr int share_front(uint64_t v) {
  return static_cast<int>((v >> 16) & 0xffff);
}
constexpr int share_back(uint64_t v) {
  return static_cast<int>(v & 0xffff);
}
constexpr int share_left(uint64_t v) {
  return std::max(0, share_back(v) - share_front(v));
}
static_assert(kMaxChunks <= 0xffff, "chunk indices must fit in 16 bits");

int job_threads(int64_t tasks, int threads, int64_t grain) {
  return static_cast<int>(
      std::clamp<int64_t>(tasks / std::max<int64_t>(grain, 1), 1, effective_threads(threads)));
}

// How long a worker spins for the next job before it sleeps, and the caller for the last chunks
// of its job before it sleeps.
constexpr std::chrono::microseconds kWorkerSpin{500}, kCallerSpin{100};
// How long a team member spins at a barrier before it sleeps: steps of a few microseconds arrive
// well within it; a member that is later was probably descheduled, and sleeping frees the core.
constexpr std::chrono::microseconds kBarrierSpin{50};
// Pause instructions a team member waits for the others to finish a step before it takes their
// remaining pieces (a few microseconds at most; see Team::for_each).
constexpr int kStealGraceSpins = 100;

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  __asm__ __volatile__("yield");
#else
  std::this_thread::yield();
#endif
}

// Spins while pred() holds, for up to `limit`; returns whether it still holds.
template <typename Pred>
bool spin_while(Pred pred, std::chrono::microseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  for (;;) {
    for (int i = 0; i < 64; i++) {
      if (!pred()) return false;
      cpu_relax();
    }
    if (std::chrono::steady_clock::now() >= end) return pred();
  }
}

// A set of workers (worker w runs under slot w + 1, at most max_threads - 1 of them) that spin,
// then sleep, between jobs. One job at a time: the caller publishes it (fields, then the shares),
// wakes the workers, runs chunks itself, and waits until every chunk is done (wait_for_chunks). A
// worker whose slot is not below the job's thread count stays out of it.
}  // namespace

class Pool {
 public:
  explicit Pool(int max_threads)
      : max_threads_(max_threads),
        shares_(new Share[kMaxThreads]),
        bounds_(new int64_t[kMaxChunks + 1]) {}
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
      generation_.fetch_add(1);
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
  }

  // Runs the job on `threads` threads in total (the caller, slot 0, included).
  void run(int64_t tasks, const RangeFn& fn, int threads, int64_t grain) {
    grow(threads - 1);
    // Plain fields: published by the release stores of the shares, read only by a thread that
    // has claimed a chunk of this job (acquire), and not rewritten before every chunk is done.
    fn_ = &fn;
    threads = plan_chunks(tasks, threads, grain, bounds_.get(), starts_);
    pending_.store(starts_[threads], std::memory_order_relaxed);
    for (int t = 0; t < threads; t++) {
      shares_[t].word.store(pack_share(threads, starts_[t], starts_[t + 1]),
                            std::memory_order_release);
    }
    {
      // Under the lock: a worker about to sleep checks generation_ under it, so it cannot miss
      // this job.
      std::lock_guard<std::mutex> lock(mu_);
      generation_.fetch_add(1, std::memory_order_release);
    }
    if (sleepers_.load(std::memory_order_relaxed) > 0) cv_.notify_all();
    work(0);
    wait_for_chunks();
  }

  std::mutex caller_mu;
  int max_threads() const { return max_threads_; }

 private:
  struct alignas(64) Share {
    std::atomic<uint64_t> word{0};
  };

  // The caller's wait for the chunks other threads still run: a spin covers the usual few
  // microseconds; past that, a thread is probably descheduled in the middle of a chunk (another
  // process on its core), and the caller sleeps: its core then goes idle and the scheduler can
  // move the waiting thread onto it, where a spinning caller would hold the core for its time
  // slice. The last thread to finish wakes it (see work).
  void wait_for_chunks() {
    if (!spin_while([&] { return pending_.load(std::memory_order_acquire) > 0; }, kCallerSpin)) {
      return;
    }
    for (;;) {
      caller_sleeping_.store(true, std::memory_order_seq_cst);
      const int left = pending_.load(std::memory_order_seq_cst);
      if (left == 0) break;
      pending_.wait(left, std::memory_order_acquire);
    }
    caller_sleeping_.store(false, std::memory_order_relaxed);
  }

  void grow(int workers) {
    workers = std::min(workers, max_threads_ - 1);
    while (static_cast<int>(workers_.size()) < workers) {
      const uint64_t seen = generation_.load();
      const int slot = static_cast<int>(workers_.size()) + 1;
      workers_.emplace_back([this, seen, slot] { loop(seen, slot); });
    }
  }

  void run_chunk(int chunk) { (*fn_)(bounds_[chunk], bounds_[chunk + 1]); }

  // Runs the chunks of its own share, then steals until no share has any left, then reports how
  // many it ran. A late thread can only claim a chunk of the job that is current: the shares are
  // reset for each job, and a job is not over while a chunk is unclaimed or not reported (so the
  // chunks one call runs and reports all belong to one job).
  void work(int slot) {
    int done = 0;
    std::atomic<uint64_t>& own = shares_[slot].word;
    uint64_t v = own.load(std::memory_order_acquire);
    while (slot < share_threads(v) && share_left(v) > 0) {
      if (own.compare_exchange_weak(v, v + (uint64_t{1} << 16), std::memory_order_acq_rel,
                                    std::memory_order_acquire)) {
        run_chunk(share_front(v));
        done++;
        v = own.load(std::memory_order_acquire);
      }
    }
    const int threads = std::min(share_threads(v), kMaxThreads);
    for (;;) {
      int victim = -1, most = 0;
      for (int t = 0; t < threads; t++) {
        const uint64_t w = shares_[t].word.load(std::memory_order_relaxed);
        if (t != slot && slot < share_threads(w) && share_left(w) > most) {
          victim = t;
          most = share_left(w);
        }
      }
      if (victim < 0) break;
      std::atomic<uint64_t>& other = shares_[victim].word;
      uint64_t w = other.load(std::memory_order_acquire);
      while (slot < share_threads(w) && share_left(w) > 0) {
        if (other.compare_exchange_weak(w, w - 1, std::memory_order_acq_rel,
                                        std::memory_order_acquire)) {
          run_chunk(share_back(w) - 1);
          done++;
          break;
        }
      }
    }
    if (done > 0 && slot != 0) {
      pending_.fetch_sub(done, std::memory_order_seq_cst);
      // (seq_cst with the caller's flag store and pending_ load: either it sees this decrement
      // before it sleeps, or this sees its flag.)
      if (caller_sleeping_.load(std::memory_order_seq_cst)) pending_.notify_all();
    } else if (done > 0) {
      pending_.fetch_sub(done, std::memory_order_acq_rel);
    }
  }

  void loop(uint64_t seen, int slot) {
    t_in_pool = true;
    t_slot = slot;
    for (;;) {
      // Spin first: jobs of one inference follow each other within microseconds, and a
      // sleeping worker takes tens of microseconds to wake.
      if (spin_while([&] { return generation_.load(std::memory_order_acquire) == seen; },
                     kWorkerSpin)) {
        std::unique_lock<std::mutex> lock(mu_);
        sleepers_.fetch_add(1, std::memory_order_relaxed);
        cv_.wait(lock, [&] { return generation_.load() != seen; });
        sleepers_.fetch_sub(1, std::memory_order_relaxed);
      }
      seen = generation_.load(std::memory_order_acquire);
      if (stop_) return;
      work(slot);
    }
  }

  const int max_threads_;
  std::vector<std::thread> workers_;
  std::unique_ptr<Share[]> shares_;  // one per slot, never reallocated (see work)
  std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> sleepers_{0};
  std::atomic<bool> stop_{false};
  // The job: its function and cut (plan_chunks).
  const RangeFn* fn_ = nullptr;
  std::unique_ptr<int64_t[]> bounds_;
  int starts_[kMaxThreads + 1] = {};
  alignas(64) std::atomic<int> pending_{0};   // chunks not done yet
  std::atomic<bool> caller_sleeping_{false};  // the caller waits on pending_
};

namespace {

Pool& default_pool() {
  static Pool p(kMaxThreads);
  return p;
}

// The pool of this thread's PoolScope (nullptr: the default pool) and its thread count.
thread_local Pool* t_pool = nullptr;
thread_local int t_pool_threads = 0;

Pool& pool() {
  return t_pool ? *t_pool : default_pool();
}

}  // namespace

ThreadPool::ThreadPool(int threads)
    : threads_(std::clamp(threads, 1, kMaxThreads)), pool_(std::make_unique<Pool>(threads_)) {}

ThreadPool::~ThreadPool() = default;

PoolScope::PoolScope(ThreadPool* pool) : saved_pool_(t_pool), saved_threads_(t_pool_threads) {
  t_pool = pool ? pool->pool_.get() : nullptr;
  t_pool_threads = pool ? pool->threads() : 0;
}

PoolScope::~PoolScope() {
  t_pool = saved_pool_;
  t_pool_threads = saved_threads_;
}

int default_num_threads() {
  static const int n = count_physical_cores();
  return n;
}

int num_threads() {
  if (t_pool_threads > 0) return t_pool_threads;
  int n = g_threads.load(std::memory_order_relaxed);
  return n > 0 ? n : default_num_threads();
}

void set_num_threads(int n) {
  g_threads.store(n > 0 ? n : 0, std::memory_order_relaxed);
}

int effective_threads(int threads) {
  return std::min(threads > 0 ? threads : num_threads(), kMaxThreads);
}

int current_thread_slot() {
  return t_slot;
}

int plan_chunks(int64_t tasks, int threads, int64_t grain, int64_t* bounds, int* shares) {
  grain = std::max<int64_t>(grain, 1);
  const int t_count = job_threads(tasks, threads, grain);
  int chunks = 0;
  for (int t = 0; t < t_count; t++) {
    shares[t] = chunks;
    const int64_t begin = tasks * t / t_count, end = tasks * (t + 1) / t_count;
    const int64_t size = end - begin;
    // Pieces [begin, end - size/2), [end - size/2, end - size/4), ..., the last two equal:
    // each at least as large as the last, size >> (pieces - 1) >= grain.
    int pieces = 1;
    while (pieces < kMaxPieces && (size >> pieces) >= grain) pieces++;
    bounds[chunks++] = begin;
    for (int i = 1; i < pieces; i++) bounds[chunks++] = end - (size >> i);
  }
  shares[t_count] = chunks;
  bounds[chunks] = tasks;
  return t_count;
}

void parallel_for(int64_t tasks, RangeFn fn, int threads, int64_t grain) {
  if (tasks <= 0) return;
  threads = job_threads(tasks, threads, grain);
  if (threads <= 1 || t_in_pool) {
    SlotScope slot(0);
    fn(0, tasks);
    return;
  }
  Pool& p = pool();
  std::unique_lock<std::mutex> lock(p.caller_mu, std::try_to_lock);
  if (!lock.owns_lock()) {
    SlotScope slot(0);
    fn(0, tasks);
    return;
  }
  SlotScope slot(0);
  t_in_pool = true;
  p.run(tasks, fn, threads, grain);
  t_in_pool = false;
}

void parallel_for_work(int64_t tasks, int64_t work_per_task, RangeFn fn) {
  if (tasks <= 0) return;
  work_per_task = std::max<int64_t>(work_per_task, 1);
  const int64_t by_work = std::max<int64_t>(1, tasks * work_per_task / kMinParallelWork);
  const int threads = static_cast<int>(std::min<int64_t>(num_threads(), by_work));
  parallel_for(tasks, fn, threads, (kMinPieceWork + work_per_task - 1) / work_per_task);
}

void Team::barrier() {
  if (size_ <= 1) return;
  const uint32_t phase = phase_.load(std::memory_order_acquire);
  // The arrivals form one release sequence, so the last arrival sees every member's writes, and
  // it publishes them all with its release of the next phase. A member cannot arrive again before
  // that release, so the reset of the count is not racing with arrivals.
  if (arrived_.fetch_add(1, std::memory_order_acq_rel) == size_ - 1) {
    arrived_.store(0, std::memory_order_relaxed);
    phase_.fetch_add(1, std::memory_order_seq_cst);
    // (seq_cst with a sleeper's count increment and phase load: either it sees the new phase
    // before it sleeps, or this sees it counted.)
    if (sleepers_.load(std::memory_order_seq_cst) > 0) phase_.notify_all();
    return;
  }
  if (!spin_while([&] { return phase_.load(std::memory_order_acquire) == phase; }, kBarrierSpin)) {
    return;
  }
  sleepers_.fetch_add(1, std::memory_order_seq_cst);
  // (The seq_cst load that sees the new phase is an acquire: it publishes the members' writes.)
  while (phase_.load(std::memory_order_seq_cst) == phase) {
    phase_.wait(phase, std::memory_order_acquire);
  }
  sleepers_.fetch_sub(1, std::memory_order_relaxed);
}

namespace {

constexpr uint64_t pack_team_share(uint32_t call, int64_t front, int64_t back) {
  return static_cast<uint64_t>(call) << 32 | static_cast<uint64_t>(front) << 16 |
         static_cast<uint64_t>(back);
}

}  // namespace

// Claims one piece of `share` for call `call` (from its front or its back). A share still
// holding an earlier call is first reset to this call's static split (any member may do it: every
// member knows the split); one holding a later call has nothing left for this one (the call is
// over: a later call starts only when every piece of this one is done).
bool Team::claim(int share, uint32_t call, int64_t pieces, bool from_front, int64_t& piece) {
  std::atomic<uint64_t>& word = shares_[share].word;
  uint64_t v = word.load(std::memory_order_acquire);
  for (;;) {
    const uint32_t at = static_cast<uint32_t>(v >> 32);
    if (at != call) {
      if (static_cast<int32_t>(at - call) > 0) return false;
      const uint64_t fresh =
          pack_team_share(call, pieces * share / size_, pieces * (share + 1) / size_);
      if (!word.compare_exchange_weak(v, fresh, std::memory_order_acq_rel,
                                      std::memory_order_acquire)) {
        continue;
      }
      v = fresh;
    }
    const int64_t front = static_cast<int64_t>((v >> 16) & 0xffff);
    const int64_t back = static_cast<int64_t>(v & 0xffff);
    if (front >= back) return false;
    const uint64_t next = from_front ? v + (uint64_t{1} << 16) : v - 1;
    if (word.compare_exchange_weak(v, next, std::memory_order_acq_rel, std::memory_order_acquire)) {
      piece = from_front ? front : back - 1;
      return true;
    }
  }
}

void Team::wait_for_pieces(uint32_t target) {
  auto pending = [&] {
    return static_cast<int32_t>(done_.load(std::memory_order_acquire) - target) < 0;
  };
  if (!spin_while(pending, kBarrierSpin)) return;
  done_sleepers_.fetch_add(1, std::memory_order_seq_cst);
  for (;;) {
    const uint32_t seen = done_.load(std::memory_order_seq_cst);
    if (static_cast<int32_t>(seen - target) >= 0) break;
    done_.wait(seen, std::memory_order_acquire);
  }
  done_sleepers_.fetch_sub(1, std::memory_order_relaxed);
}

// Adds `done` pieces to the count (release: publishes them to whoever sees the count reach its
// target; the adds form one release sequence, so the last one carries every member's writes) and
// wakes the sleepers when the count reaches `target`.
void Team::report(uint32_t done, uint32_t target) {
  if (done == 0) return;
  const uint32_t now = done_.fetch_add(done, std::memory_order_seq_cst) + done;
  // (seq_cst with a sleeper's count increment and count load: either it sees this add before it
  // sleeps, or this sees it counted.)
  if (static_cast<int32_t>(now - target) >= 0 &&
      done_sleepers_.load(std::memory_order_seq_cst) > 0) {
    done_.notify_all();
  }
}

void Team::for_each(int member, int64_t tasks, RangeFn fn, int64_t grain) {
  if (tasks <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  if (size_ <= 1) {
    fn(0, tasks);
    return;
  }
  // At most 0xffff pieces, so that a share's bounds fit its word.
  grain = std::max(grain, (tasks + 0xfffe) / 0xffff);
  const int64_t pieces = (tasks + grain - 1) / grain;
  Progress& mine = progress_[member];
  const uint32_t call = ++mine.calls;
  mine.pieces += static_cast<uint32_t>(pieces);
  auto run = [&](int64_t piece) { fn(piece * grain, std::min(tasks, (piece + 1) * grain)); };
  int64_t piece = 0;
  uint32_t done = 0;
  while (claim(member, call, pieces, true, piece)) {
    run(piece);
    done++;
  }
  report(done, mine.pieces);
  // A short grace before taking others' pieces: an owner that is only a little late would
  // otherwise see its next piece taken, and the taker would read that piece's data from the
  // owner's cache, slower than the owner (measured on lstm_kws: ~5% at 2 threads).
  for (int i = 0; i < kStealGraceSpins; i++) {
    if (static_cast<int32_t>(done_.load(std::memory_order_acquire) - mine.pieces) >= 0) break;
    cpu_relax();
  }
  done = 0;
  for (int i = 1; i < size_; i++) {
    const int other = (member + i) % size_;
    while (claim(other, call, pieces, false, piece)) {
      run(piece);
      done++;
    }
  }
  report(done, mine.pieces);
  wait_for_pieces(mine.pieces);
}

void run_team(int threads, TeamFn fn) {
  // Never more members than the pool has threads: every member must run at once.
  threads = std::min({effective_threads(threads), Team::kMaxMembers, pool().max_threads()});
  Pool* p = threads > 1 && !t_in_pool ? &pool() : nullptr;
  std::unique_lock<std::mutex> lock;
  if (p) {
    lock = std::unique_lock<std::mutex>(p->caller_mu, std::try_to_lock);
    if (!lock.owns_lock()) p = nullptr;
  }
  SlotScope slot(0);
  if (!p) {
    Team solo(1);
    const bool saved = t_in_pool;
    t_in_pool = true;
    fn(0, solo);
    t_in_pool = saved;
    return;
  }
  // One chunk per member (plan_chunks(threads, threads, 1) gives every slot a one-task share).
  // A thread blocked in a member's barrier cannot take another chunk, and the others keep taking
  // chunks until none is left, so the members all run at once on distinct threads.
  Team team(threads);
  t_in_pool = true;
  p->run(
      threads,
      [&](int64_t begin, int64_t end) {
        for (int64_t m = begin; m < end; m++) fn(static_cast<int>(m), team);
      },
      threads, 1);
  t_in_pool = false;
}

}  // namespace kiln
