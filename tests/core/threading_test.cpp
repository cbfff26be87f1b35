// The pool behind parallel_for: every task exactly once in contiguous chunks whose cut depends
// only on (tasks, threads, grain); thread slots in [0, threads), never held by two threads at
// once; a thread that is held up has its chunks taken over by the others; nested calls inline.
#include "base/threading.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <utility>
#include <vector>

namespace kiln {
namespace {

struct Chunk {
  int64_t begin, end;
  int slot;
};

// Runs one job and returns its chunks in begin order, checking on the way that the running
// thread's slot is in range and that no slot is held by two threads at once.
std::vector<Chunk> record_job(int64_t tasks, int threads, int64_t grain) {
  const int slots = effective_threads(threads);
  std::vector<std::atomic<int>> busy(static_cast<size_t>(slots));
  std::mutex mu;
  std::vector<Chunk> chunks;
  std::atomic<int> bad_slot{0}, shared_slot{0};
  parallel_for(
      tasks,
      [&](int64_t b, int64_t e) {
        const int slot = current_thread_slot();
        if (slot < 0 || slot >= slots) {
          bad_slot++;
          return;
        }
        if (busy[static_cast<size_t>(slot)].fetch_add(1) != 0) shared_slot++;
        // Long enough for the other threads to claim chunks meanwhile.
        volatile double sink = 0;
        for (int i = 0; i < 2000; i++) sink = sink + i;
        {
          std::lock_guard<std::mutex> lock(mu);
          chunks.push_back({b, e, slot});
        }
        busy[static_cast<size_t>(slot)].fetch_sub(1);
      },
      threads, grain);
  EXPECT_EQ(bad_slot.load(), 0) << "a slot outside [0, " << slots << ")";
  EXPECT_EQ(shared_slot.load(), 0) << "two threads ran under one slot at once";
  std::sort(chunks.begin(), chunks.end(),
            [](const Chunk& a, const Chunk& b) { return a.begin < b.begin; });
  return chunks;
}

TEST(CoreThreading, ParallelForCoversEveryTaskOnce) {
  for (int threads : {1, 2, 3, 8}) {
    for (int64_t tasks : {1, 2, 5, 100, 1001}) {
      for (int64_t grain : {1, 3, 64}) {
        SCOPED_TRACE(::testing::Message()
                     << "threads " << threads << " tasks " << tasks << " grain " << grain);
        std::vector<int> hits(static_cast<size_t>(tasks), 0);
        parallel_for(
            tasks,
            [&](int64_t b, int64_t e) {
              for (int64_t i = b; i < e; i++) hits[static_cast<size_t>(i)]++;
            },
            threads, grain);
        for (int h : hits) ASSERT_EQ(h, 1);
      }
    }
  }
}

// The cut: T = clamp(tasks / grain, 1, threads) shares, the static split; each share in pieces of
// halving size (the last two equal), at least `grain` tasks each, at most kMaxPieces.
TEST(CoreThreading, PlanChunksCutsSharesInHalvingPieces) {
  for (int threads : {1, 2, 3, 5}) {
    for (int64_t tasks : {1, 7, 8, 40, 333, 5000}) {
      for (int64_t grain : {1, 2, 10, 500}) {
        SCOPED_TRACE(::testing::Message()
                     << "threads " << threads << " tasks " << tasks << " grain " << grain);
        std::vector<int64_t> bounds(static_cast<size_t>(kMaxPieces * threads + 1));
        std::vector<int> shares(static_cast<size_t>(threads + 1));
        const int t_count = plan_chunks(tasks, threads, grain, bounds.data(), shares.data());
        ASSERT_EQ(t_count, std::clamp<int64_t>(tasks / grain, 1, threads));
        ASSERT_EQ(shares[0], 0);
        ASSERT_EQ(bounds[0], 0);
        ASSERT_EQ(bounds[static_cast<size_t>(shares[static_cast<size_t>(t_count)])], tasks);
        for (int t = 0; t < t_count; t++) {
          const int first = shares[static_cast<size_t>(t)];
          const int last = shares[static_cast<size_t>(t + 1)];
          ASSERT_GE(last - first, 1);
          ASSERT_LE(last - first, kMaxPieces);
          EXPECT_EQ(bounds[static_cast<size_t>(first)], tasks * t / t_count);
          int64_t previous = INT64_MAX;
          for (int c = first; c < last; c++) {
            const int64_t size =
                bounds[static_cast<size_t>(c + 1)] - bounds[static_cast<size_t>(c)];
            if (t_count > 1) {
              EXPECT_GE(size, grain) << "chunk " << c;
            }
            EXPECT_GE(size, 1) << "chunk " << c;
            EXPECT_LE(size, previous) << "chunk " << c;
            previous = size;
          }
          // More pieces are cut while the last stays at least `grain` (and there is room).
          const int64_t share =
              bounds[static_cast<size_t>(last)] - bounds[static_cast<size_t>(first)];
          if (last - first < kMaxPieces) {
            EXPECT_LT(share >> (last - first), grain);
          }
        }
      }
    }
  }
}

// parallel_for runs exactly the planned chunks, from run to run, whichever thread takes which.
TEST(CoreThreading, ParallelForRunsThePlannedChunks) {
  for (int threads : {1, 2, 3, 5}) {
    for (int64_t tasks : {1, 7, 40, 333}) {
      for (int64_t grain : {1, 2, 10}) {
        SCOPED_TRACE(::testing::Message()
                     << "threads " << threads << " tasks " << tasks << " grain " << grain);
        std::vector<int64_t> bounds(static_cast<size_t>(kMaxPieces * threads + 1));
        std::vector<int> shares(static_cast<size_t>(threads + 1));
        const int t_count = plan_chunks(tasks, threads, grain, bounds.data(), shares.data());
        const int count = t_count == 1 ? 1 : shares[static_cast<size_t>(t_count)];
        for (int repeat = 0; repeat < 3; repeat++) {
          std::vector<Chunk> chunks = record_job(tasks, threads, grain);
          ASSERT_EQ(static_cast<int>(chunks.size()), count);
          if (count == 1) {
            EXPECT_EQ(chunks[0].begin, 0);
            EXPECT_EQ(chunks[0].end, tasks);
            continue;
          }
          for (int c = 0; c < count; c++) {
            EXPECT_EQ(chunks[static_cast<size_t>(c)].begin, bounds[static_cast<size_t>(c)]);
            EXPECT_EQ(chunks[static_cast<size_t>(c)].end, bounds[static_cast<size_t>(c + 1)]);
          }
        }
      }
    }
  }
}

// Slots: 0 outside any job and on the calling thread; a slot is one thread for the whole job.
TEST(CoreThreading, SlotsBelongToOneThreadPerJob) {
  EXPECT_EQ(current_thread_slot(), 0);
  for (int threads : {2, 3, 4}) {
    std::mutex mu;
    std::map<int, std::thread::id> owner;
    bool consistent = true;
    parallel_for(
        64,
        [&](int64_t, int64_t) {
          std::lock_guard<std::mutex> lock(mu);
          auto [it, fresh] = owner.emplace(current_thread_slot(), std::this_thread::get_id());
          if (!fresh && it->second != std::this_thread::get_id()) consistent = false;
          if (current_thread_slot() == 0 && std::this_thread::get_id() != owner[0]) {
            consistent = false;
          }
        },
        threads, 1);
    EXPECT_TRUE(consistent) << threads << " threads";
    auto caller = owner.find(0);
    if (caller != owner.end()) {
      EXPECT_EQ(caller->second, std::this_thread::get_id());
    }
    EXPECT_EQ(current_thread_slot(), 0);
  }
}

// A call made inside a chunk runs inline under slot 0 (its own scratch is its thread's own, so
// slot 0 of it is free), and the outer slot is back afterwards.
TEST(CoreThreading, NestedCallsRunInlineUnderSlotZero) {
  std::atomic<int> wrong{0};
  parallel_for(
      8,
      [&](int64_t, int64_t) {
        const int outer = current_thread_slot();
        const std::thread::id me = std::this_thread::get_id();
        parallel_for(
            100,
            [&](int64_t, int64_t) {
              if (current_thread_slot() != 0 || std::this_thread::get_id() != me) wrong++;
            },
            2, 1);
        if (current_thread_slot() != outer) wrong++;
      },
      2, 1);
  EXPECT_EQ(wrong.load(), 0);
}

// Whichever slot first runs a chunk is held there until every other chunk is done: the job can
// only finish if the other thread takes over the held thread's remaining chunks (with a static
// split it would wait for ever; the wait gives up after 60 s and the test fails).
TEST(CoreThreading, HeldUpThreadsChunksAreTakenOver) {
  for (int held : {0, 1}) {
    SCOPED_TRACE(::testing::Message() << "held slot " << held);
    constexpr int64_t kTasks = 16;
    std::atomic<int> done{0}, ran_by_held{0};
    std::atomic<bool> holding{false}, gave_up{false};
    parallel_for(
        kTasks,
        [&](int64_t b, int64_t e) {
          if (current_thread_slot() == held && !holding.exchange(true)) {
            const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(60);
            while (done.load() < kTasks - (e - b)) {
              if (std::chrono::steady_clock::now() > limit) {
                gave_up = true;
                break;
              }
              std::this_thread::yield();
            }
          }
          if (current_thread_slot() == held) ran_by_held += static_cast<int>(e - b);
          done += static_cast<int>(e - b);
        },
        2, 1);
    EXPECT_FALSE(gave_up.load());
    EXPECT_EQ(done.load(), kTasks);
    // The held thread ran one chunk at most (none if the other one took every chunk first): the
    // first of its share, half of it.
    EXPECT_LE(ran_by_held.load(), kTasks / 4);
  }
}

// A worker's chunk outlasts the caller's spin: the caller goes to sleep and the worker wakes it
// when it is done (without that wake-up the call would never return).
TEST(CoreThreading, CallerSleepsThroughALongChunkAndIsWoken) {
  for (int repeat = 0; repeat < 5; repeat++) {
    std::atomic<bool> worker_started{false};
    std::atomic<int> done{0};
    parallel_for(
        2,
        [&](int64_t b, int64_t e) {
          if (current_thread_slot() != 0) {
            worker_started = true;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
          } else {
            // Let the worker claim its chunk first (if it shows up at all within 10 s).
            const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(10);
            while (!worker_started && std::chrono::steady_clock::now() < limit) {
              std::this_thread::yield();
            }
          }
          done += static_cast<int>(e - b);
        },
        2, 1);
    EXPECT_EQ(done.load(), 2);
  }
}

// Many short jobs back to back, with thread counts changing from job to job (workers that are
// late for one job, or not part of the next, must neither miss nor repeat a chunk of it).
TEST(CoreThreading, ManyShortJobsBackToBack) {
  std::mt19937 rng(5);
  std::vector<int> hits;
  int bad = 0;
  for (int job = 0; job < 20000; job++) {
    const int64_t tasks = std::uniform_int_distribution<int64_t>(1, 300)(rng);
    const int threads = std::uniform_int_distribution<int>(1, 4)(rng);
    hits.assign(static_cast<size_t>(tasks), 0);
    parallel_for(
        tasks,
        [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; i++) hits[static_cast<size_t>(i)]++;
        },
        threads, 1 + job % 3);
    for (int h : hits) bad += h != 1;
  }
  EXPECT_EQ(bad, 0);
}

TEST(CoreThreading, ParallelForWorkKeepsSmallJobsInline) {
  const std::thread::id me = std::this_thread::get_id();
  bool inline_only = true;
  int calls = 0;
  parallel_for_work(100, 10, [&](int64_t b, int64_t e) {
    calls++;
    inline_only = inline_only && b == 0 && e == 100 && std::this_thread::get_id() == me;
  });
  EXPECT_TRUE(inline_only);
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace kiln
