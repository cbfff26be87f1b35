// run_team and Team::barrier: every member runs once, on its own thread, all at once; no member
// leaves a barrier before every member has reached it, and what was written before it is seen
// after it; nested or racing calls run a team of one inline; late or descheduled members are
// waited for (spinning, then sleeping) and never deadlock the others.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "base/threading.h"

namespace kiln {
namespace {

TEST(CoreTeam, EveryMemberRunsOnceOnItsOwnThread) {
  for (int threads : {1, 2, 3, 4}) {
    SCOPED_TRACE(::testing::Message() << "threads " << threads);
    std::vector<std::atomic<int>> runs(static_cast<size_t>(threads));
    std::vector<std::thread::id> ids(static_cast<size_t>(threads));
    std::atomic<int> wrong_size{0};
    run_team(threads, [&](int member, Team& team) {
      if (team.size() != threads) wrong_size++;
      runs[static_cast<size_t>(member)]++;
      ids[static_cast<size_t>(member)] = std::this_thread::get_id();
      // Every member must be running at once to get past this.
      team.barrier();
    });
    EXPECT_EQ(wrong_size.load(), 0);
    for (auto& r : runs) EXPECT_EQ(r.load(), 1);
    EXPECT_EQ(ids[0], std::this_thread::get_id()) << "the caller is member 0";
    EXPECT_EQ(std::set<std::thread::id>(ids.begin(), ids.end()).size(),
              static_cast<size_t>(threads));
  }
}

// Step s: each member writes its cell (plain memory) and counts itself, then a barrier; after it
// every cell must hold s and the count must be complete; a second barrier keeps the next step's
// writes after everyone's reads. A barrier that let a member through early, or did not publish
// the writes, shows up as a wrong cell or count (and as a race under ThreadSanitizer).
void check_barrier_steps(int threads, int steps) {
  std::vector<int> cells(static_cast<size_t>(threads) * 16, -1);  // one cache line each
  std::atomic<int> arrivals{0}, bad_cells{0}, bad_counts{0}, size{0};
  run_team(threads, [&](int member, Team& team) {
    if (member == 0) size = team.size();
    for (int s = 0; s < steps; s++) {
      cells[static_cast<size_t>(member) * 16] = s;
      arrivals.fetch_add(1, std::memory_order_relaxed);
      team.barrier();
      for (int m = 0; m < team.size(); m++) {
        if (cells[static_cast<size_t>(m) * 16] != s) bad_cells++;
      }
      if (arrivals.load(std::memory_order_relaxed) != (s + 1) * team.size()) bad_counts++;
      team.barrier();
    }
  });
  EXPECT_EQ(size.load(), threads);
  EXPECT_EQ(bad_cells.load(), 0);
  EXPECT_EQ(bad_counts.load(), 0);
  EXPECT_EQ(arrivals.load(), steps * threads);
}

TEST(CoreTeam, BarrierOrdersSteps) {
  for (int threads : {2, 3}) {
    SCOPED_TRACE(::testing::Message() << "threads " << threads);
    check_barrier_steps(threads, 5000);
  }
}

// More members than this machine has cores: members are descheduled in the middle of steps, so
// barriers go through the sleeping path again and again; it must still finish and stay correct.
TEST(CoreTeam, MoreMembersThanCores) {
  const int threads = static_cast<int>(std::max(4u, 2 * std::thread::hardware_concurrency()));
  check_barrier_steps(std::min(threads, 16), 300);
}

// One member is late (asleep for longer than the others spin): the others sleep at the barrier
// and the last arrival wakes them.
TEST(CoreTeam, LateMemberWakesTheSleepers) {
  for (int late : {0, 1, 2}) {
    SCOPED_TRACE(::testing::Message() << "late member " << late);
    std::atomic<int> after{0}, before{0}, early{0};
    run_team(3, [&](int member, Team& team) {
      if (member == late) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        before++;
      }
      team.barrier();
      if (before.load() != 1) early++;
      after++;
    });
    EXPECT_EQ(early.load(), 0);
    EXPECT_EQ(after.load(), 3);
  }
}

// Inside a parallel_for chunk (or another team) the pool is busy: a team of one, inline on the
// calling thread, whose barriers return at once.
TEST(CoreTeam, NestedCallsRunATeamOfOneInline) {
  std::atomic<int> wrong{0}, ran{0};
  parallel_for(
      4,
      [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; i++) {
          const std::thread::id me = std::this_thread::get_id();
          run_team(3, [&](int member, Team& team) {
            if (member != 0 || team.size() != 1 || std::this_thread::get_id() != me) wrong++;
            team.barrier();
            team.barrier();
            ran++;
          });
        }
      },
      2, 1);
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(ran.load(), 4);

  std::atomic<int> inner_sizes{0};
  run_team(2, [&](int, Team& outer) {
    run_team(2, [&](int member, Team& inner) { inner_sizes += inner.size() + member; });
    outer.barrier();
  });
  EXPECT_EQ(inner_sizes.load(), 2) << "each of the 2 outer members ran a solo team";
}

// Two threads start teams at once: one gets the pool, the other runs alone; both finish with
// every step checked.
TEST(CoreTeam, RacingCallersBothFinish) {
  std::atomic<int> sizes_ok{0};
  auto caller = [&] {
    for (int i = 0; i < 200; i++) {
      std::atomic<int> steps{0};
      int size = 0;
      run_team(2, [&](int member, Team& team) {
        if (member == 0) size = team.size();
        for (int s = 0; s < 10; s++) {
          steps++;
          team.barrier();
        }
      });
      if ((size == 1 || size == 2) && steps.load() == 10 * size) sizes_ok++;
    }
  };
  std::thread other(caller);
  caller();
  other.join();
  EXPECT_EQ(sizes_ok.load(), 400);
}

// Many runs back to back, with team sizes and barrier counts (zero included) changing from run
// to run and parallel_for jobs in between: workers late for one run must neither miss nor repeat
// a member of the next.
TEST(CoreTeam, ManyRunsBackToBack) {
  std::mt19937 rng(11);
  int bad = 0;
  for (int run = 0; run < 3000; run++) {
    const int threads = std::uniform_int_distribution<int>(1, 3)(rng);
    const int steps = std::uniform_int_distribution<int>(0, 4)(rng);
    std::vector<std::atomic<int>> runs(static_cast<size_t>(threads));
    std::atomic<int> total{0};
    run_team(threads, [&](int member, Team& team) {
      runs[static_cast<size_t>(member)]++;
      for (int s = 0; s < steps; s++) {
        total++;
        team.barrier();
      }
    });
    for (auto& r : runs) bad += r.load() != 1;
    bad += total.load() != steps * threads;
    if (run % 7 == 0) {
      std::atomic<int64_t> sum{0};
      parallel_for(
          100, [&](int64_t b, int64_t e) { sum += e - b; }, 2, 1);
      bad += sum.load() != 100;
    }
  }
  EXPECT_EQ(bad, 0);
}

// for_each: every task of every call exactly once, in pieces of `grain` tasks (aligned, the last
// one shorter), whatever member runs them; after the call every member sees every piece's
// writes. Calls change tasks and grain from one to the next, as members may.
TEST(CoreTeam, ForEachRunsEveryTaskOnceAndPublishesIt) {
  for (int threads : {1, 2, 3}) {
    SCOPED_TRACE(::testing::Message() << "threads " << threads);
    constexpr int kCalls = 2000;
    std::vector<int> cells(512, -1);
    std::atomic<int> bad_pieces{0}, bad_cells{0}, size{0};
    run_team(threads, [&](int member, Team& team) {
      if (member == 0) size = team.size();
      for (int call = 0; call < kCalls; call++) {
        const int64_t tasks = 1 + (call * 37) % 300, grain = 1 + call % 5;
        team.for_each(
            member, tasks,
            [&](int64_t b, int64_t e) {
              if (b % grain != 0 || e <= b || (e - b != grain && e != tasks)) bad_pieces++;
              for (int64_t i = b; i < e; i++) {
                // Each task once per call: it finds the previous call's mark (or none).
                if (cells[static_cast<size_t>(i)] >= call) bad_cells++;
                cells[static_cast<size_t>(i)] = call;
              }
            },
            grain);
        for (int64_t i = 0; i < tasks; i++) {
          if (cells[static_cast<size_t>(i)] != call) bad_cells++;
        }
        // The next call rewrites cells these reads must see first.
        team.barrier();
      }
    });
    EXPECT_EQ(size.load(), threads);
    EXPECT_EQ(bad_pieces.load(), 0);
    EXPECT_EQ(bad_cells.load(), 0);
  }
}

// A member that does not show up for a while (descheduled, or a worker slow to wake): the
// others run its pieces and their calls complete without it; it catches up afterwards.
TEST(CoreTeam, ForEachTakesOverAnAbsentMembersPieces) {
  for (int absent : {0, 1}) {
    SCOPED_TRACE(::testing::Message() << "absent member " << absent);
    constexpr int kCalls = 50;
    std::atomic<int> ran_by_absent{0}, finished_without{0}, total{0};
    std::atomic<bool> back{false};
    run_team(2, [&](int member, Team& team) {
      if (member == absent) {
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        back = true;
      }
      for (int call = 0; call < kCalls; call++) {
        team.for_each(member, 16, [&](int64_t b, int64_t e) {
          total += static_cast<int>(e - b);
          if (member == absent) ran_by_absent += static_cast<int>(e - b);
        });
        if (member != absent && !back) finished_without++;
      }
    });
    EXPECT_EQ(total.load(), 16 * kCalls);
    // The other member did not wait 30 ms per call: most calls finished before the absent one
    // came back (all of them, unless this host held the present one up for as long).
    EXPECT_GT(finished_without.load(), 0);
    EXPECT_LT(ran_by_absent.load(), 16 * kCalls);
  }
}

}  // namespace
}  // namespace kiln
