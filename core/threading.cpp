#include "core/threading.h"

#include <sched.h>

#include <atomic>
#include <condition_variable>
#include <fstream>
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

// A fixed set of workers that sleep between jobs. One job at a time, split into `threads`
// chunks: the caller runs chunk 0 and worker w chunk w + 1, always the same, so a kernel's
// per-thread scratch (thread_local, grow-only) has seen its largest size after one run and a
// steady-state run allocates nothing on any thread. The caller then spins until all chunks are
// done.
class Pool {
 public:
  static constexpr int kMaxChunks = 32;  // chunk claims are bits of one word

  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
      generation_.fetch_add(1);
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
  }

  // Runs the job on `threads` threads in total (the caller included), threads <= kMaxChunks.
  void run(int64_t tasks, const RangeFn& fn, int threads) {
    grow(threads - 1);
    fn_ = &fn;
    tasks_ = tasks;
    chunks_ = threads;
    pending_.store(threads - 1);
    {
      std::lock_guard<std::mutex> lock(mu_);
      uint64_t gen = (generation_.load() + 1) & 0xffffu;
      claims_.store(gen << 48 | static_cast<uint64_t>(threads) << 32, std::memory_order_release);
      generation_.store(gen, std::memory_order_release);
    }
    cv_.notify_all();
    run_chunk(0);
    while (pending_.load(std::memory_order_acquire) > 0) cpu_relax();
  }

  std::mutex caller_mu;

 private:
  static void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    std::this_thread::yield();
#endif
  }

  void grow(int workers) {
    while (static_cast<int>(workers_.size()) < workers) {
      uint64_t seen = generation_.load();
      int chunk = static_cast<int>(workers_.size()) + 1;
      workers_.emplace_back([this, seen, chunk] { loop(seen, chunk); });
    }
  }

  void run_chunk(int chunk) {
    int64_t begin = tasks_ * chunk / chunks_, end = tasks_ * (chunk + 1) / chunks_;
    if (begin < end) (*fn_)(begin, end);
  }

  // Runs this worker's chunk of job `gen` when the job has one. The claim word (job id, chunk
  // count, claimed bits) keeps a worker that is late from running a chunk of the next job
  // under the id of the previous one, or twice.
  void work(uint64_t gen, int chunk) {
    uint64_t v = claims_.load(std::memory_order_acquire);
    for (;;) {
      if ((v >> 48) != gen) return;
      int chunks = static_cast<int>((v >> 32) & 0xffffu);
      uint64_t bit = uint64_t{1} << chunk;
      if (chunk >= chunks || (v & bit)) return;
      if (claims_.compare_exchange_weak(v, v | bit, std::memory_order_acq_rel)) break;
    }
    run_chunk(chunk);
    pending_.fetch_sub(1, std::memory_order_acq_rel);
  }

  void loop(uint64_t seen, int chunk) {
    tls_in_pool() = true;
    for (;;) {
      // Spin a little first: jobs of one inference follow each other within microseconds.
      for (int i = 0; i < 20000 && generation_.load(std::memory_order_acquire) == seen; i++) {
        cpu_relax();
      }
      if (generation_.load(std::memory_order_acquire) == seen) {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return generation_.load() != seen; });
      }
      seen = generation_.load(std::memory_order_acquire);
      if (stop_) return;
      if (chunk < kMaxChunks) work(seen, chunk);
    }
  }

 public:
  static bool& tls_in_pool() {
    thread_local bool in_pool = false;
    return in_pool;
  }

 private:
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<bool> stop_{false};
  const RangeFn* fn_ = nullptr;
  int64_t tasks_ = 0;
  int chunks_ = 0;
  std::atomic<uint64_t> claims_{0};  // job id << 48 | chunks << 32 | claimed chunk bits
  std::atomic<int> pending_{0};      // worker chunks not done yet
};

Pool& pool() {
  static Pool p;
  return p;
}

}  // namespace

int default_num_threads() {
  static const int n = count_physical_cores();
  return n;
}

int num_threads() {
  int n = g_threads.load(std::memory_order_relaxed);
  return n > 0 ? n : default_num_threads();
}

void set_num_threads(int n) {
  g_threads.store(n > 0 ? n : 0, std::memory_order_relaxed);
}

void parallel_for(int64_t tasks, RangeFn fn, int threads) {
  if (tasks <= 0) return;
  if (threads <= 0) threads = num_threads();
  if (threads > tasks) threads = static_cast<int>(tasks);
  if (threads > Pool::kMaxChunks) threads = Pool::kMaxChunks;
  if (threads <= 1 || Pool::tls_in_pool()) {
    fn(0, tasks);
    return;
  }
  Pool& p = pool();
  std::unique_lock<std::mutex> lock(p.caller_mu, std::try_to_lock);
  if (!lock.owns_lock()) {
    fn(0, tasks);
    return;
  }
  Pool::tls_in_pool() = true;
  p.run(tasks, fn, threads);
  Pool::tls_in_pool() = false;
}

}  // namespace kiln
