#include "core/timing_stats.h"

#include <gtest/gtest.h>

#include <ctime>
#include <random>

#include "core/benchmark.h"
#include "core/random_tensor.h"

namespace {

TEST(TimingStats, NearestRankPercentilesAndMedian) {
  std::vector<double> samples;
  for (int i = 100; i >= 1; i--) samples.push_back(i);  // 1..100, unsorted
  auto s = kiln::timing_stats(samples);
  EXPECT_EQ(s.count, 100u);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 100);
  EXPECT_DOUBLE_EQ(s.median, 50.5);
  EXPECT_DOUBLE_EQ(s.mean, 50.5);
  EXPECT_EQ(s.p90, 90);
  EXPECT_EQ(s.p99, 99);
  EXPECT_EQ(kiln::percentile({3, 1, 2}, 50), 2);
  EXPECT_EQ(kiln::percentile({3, 1, 2}, 100), 3);
  EXPECT_EQ(kiln::percentile({3, 1, 2}, 0), 1);
}

TEST(TimingStats, SmallSamples) {
  auto one = kiln::timing_stats({4.0});
  EXPECT_EQ(one.median, 4);
  EXPECT_EQ(one.p99, 4);
  auto ten = kiln::timing_stats({1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  EXPECT_EQ(ten.p90, 9);
  EXPECT_EQ(ten.p99, 10);
  EXPECT_EQ(kiln::timing_stats({}).count, 0u);
}

TEST(Benchmark, CountsWarmupAndTimedRuns) {
  int calls = 0;
  kiln::BenchLimits limits;
  limits.warmup_runs = 2;
  limits.max_runs = 5;
  limits.max_seconds = 0;
  auto r = kiln::benchmark([&] { calls++; }, limits);
  EXPECT_EQ(calls, 7);
  EXPECT_EQ(r.warmup_runs, 2);
  EXPECT_EQ(r.run_ms.size(), 5u);
  limits.max_runs = 0;
  EXPECT_THROW(kiln::benchmark([] {}, limits), kiln::Error);
}

// CPU time is counted over the timed runs only: each warm-up run burns 20 ms of this thread's
// CPU, each timed run 10 ms (measured on the thread's own CPU clock, so load does not matter).
TEST(Benchmark, CpuTimeCoversTheTimedRunsOnly) {
  auto burn = [](double seconds) {
    auto cpu = [] {
      timespec t{};
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
      return static_cast<double>(t.tv_sec) + t.tv_nsec * 1e-9;
    };
    const double start = cpu();
    volatile double sink = 0;
    while (cpu() - start < seconds) sink = sink + 1;
  };
  kiln::BenchLimits limits;
  limits.warmup_runs = 2;
  limits.max_runs = 3;
  limits.max_seconds = 0;
  int calls = 0;
  auto r = kiln::benchmark([&] { burn(calls++ < 2 ? 0.02 : 0.01); }, limits);
  EXPECT_GE(r.cpu_seconds, 0.029);
  EXPECT_LT(r.cpu_seconds, 0.065);
}

TEST(RandomTensor, TypesRangesAndConstantDetection) {
  std::mt19937_64 rng(1);
  auto f = kiln::random_tensor(kiln::DatumType::F32, {1000}, rng);
  float lo = 1, hi = -1;
  for (float v : f.values<float>()) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  EXPECT_GE(lo, -1.0f);
  EXPECT_LT(hi, 1.0f);
  EXPECT_LT(lo, -0.9f);
  EXPECT_GT(hi, 0.9f);
  EXPECT_FALSE(kiln::is_constant_tensor(f));
  auto i = kiln::random_tensor(kiln::DatumType::I64, {1000}, rng);
  for (int64_t v : i.values<int64_t>()) {
    EXPECT_GE(v, 0);
    EXPECT_LE(v, 9);
  }
  EXPECT_TRUE(kiln::is_constant_tensor(kiln::Tensor(kiln::DatumType::F32, {4})));
  EXPECT_FALSE(kiln::is_constant_tensor(kiln::Tensor(kiln::DatumType::F32, {1})));
  EXPECT_THROW(kiln::random_tensor(kiln::DatumType::String, {2}, rng), kiln::Error);
}

}  // namespace
