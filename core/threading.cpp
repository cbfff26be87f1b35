#include "core/threading.h"

#include <sched.h>

#include <algorithm>
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

// A fixed set of workers that sleep between jobs. One job at a time: the caller splits it into
// chunks, wakes the workers, takes chunks itself, and spins until all chunks are done.
class Pool {
 public:
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
      generation_.fetch_add(1);
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
  }

  // Runs the job on `threads` threads in total (the caller included).
  void run(int64_t tasks, const std::function<void(int64_t, int64_t)>& fn, int threads) {
    grow(threads - 1);
    fn_ = &fn;
    tasks_ = tasks;
    chunks_ = threads;
    pending_.store(threads);
    uint64_t gen;
    {
      std::lock_guard<std::mutex> lock(mu_);
      gen = (generation_.load() + 1) & 0xffffffffu;
      next_.store(gen << 32, std::memory_order_release);
      generation_.store(gen, std::memory_order_release);
    }
    cv_.notify_all();
    work(gen);
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
      workers_.emplace_back([this, seen] { loop(seen); });
    }
  }

  // Claims chunks of job `gen` until none is left. The job id in the counter keeps a worker
  // that is late from claiming chunks of the next job before it has seen that job.
  void work(uint64_t gen) {
    for (;;) {
      uint64_t v = next_.load(std::memory_order_acquire);
      if ((v >> 32) != (gen & 0xffffffffu)) return;
      if (!next_.compare_exchange_weak(v, v + 1, std::memory_order_acq_rel)) continue;
      int chunk = static_cast<int>(v & 0xffffffffu);
      if (chunk >= chunks_) return;
      int64_t begin = tasks_ * chunk / chunks_, end = tasks_ * (chunk + 1) / chunks_;
      if (begin < end) (*fn_)(begin, end);
      pending_.fetch_sub(1, std::memory_order_acq_rel);
    }
  }

  void loop(uint64_t seen) {
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
      work(seen);
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
  const std::function<void(int64_t, int64_t)>* fn_ = nullptr;
  int64_t tasks_ = 0;
  int chunks_ = 0;
  std::atomic<uint64_t> next_{0};  // job id << 32 | next chunk
  std::atomic<int> pending_{0};
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

void parallel_for(int64_t tasks, const std::function<void(int64_t, int64_t)>& fn, int threads) {
  if (tasks <= 0) return;
  if (threads <= 0) threads = num_threads();
  if (threads > tasks) threads = static_cast<int>(tasks);
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

void parallel_for_work(int64_t tasks, int64_t work_per_task,
                       const std::function<void(int64_t, int64_t)>& fn) {
  if (tasks <= 0) return;
  const int64_t work = tasks * std::max<int64_t>(work_per_task, 1);
  const int64_t by_work = std::max<int64_t>(1, work / kMinParallelWork);
  const int threads = static_cast<int>(std::min<int64_t>(num_threads(), by_work));
  parallel_for(tasks, fn, threads);
}

}  // namespace kiln
