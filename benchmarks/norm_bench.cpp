// Micro-benchmarks of kernels/norm (softmax, layer norm, GELU) and kernels/copy (a transpose) per
// ISA, on tiny_bert's shapes (attention rows of 64, hidden rows of 256, a 64x1024 GELU), reporting
// GB/s of floats read and written. Part of build/kiln_kernels_bench.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "kernels/copy/strided_copy.h"
#include "kernels/norm/norm.h"

namespace {

using kiln::kernels::Isa;

std::vector<float> random_floats(int64_t n) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> d(-3, 3);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = d(rng);
  return v;
}

void bytes_rate(benchmark::State& state, int64_t floats) {
  state.counters["GB/s"] = benchmark::Counter(
      2.0 * 4 * static_cast<double>(floats) * static_cast<double>(state.iterations()) / 1e9,
      benchmark::Counter::kIsRate);
}

void softmax(benchmark::State& state, Isa isa) {
  const int64_t rows = state.range(0), n = state.range(1);
  auto x = random_floats(rows * n);
  std::vector<float> y(x.size());
  const auto& k = kiln::kernels::norm_kernels(isa);
  for (auto _ : state) {
    k.softmax(x.data(), y.data(), rows, n, false);
    benchmark::ClobberMemory();
  }
  bytes_rate(state, rows * n);
}

void layer_norm(benchmark::State& state, Isa isa) {
  const int64_t rows = state.range(0), n = state.range(1);
  auto x = random_floats(rows * n), gamma = random_floats(n), beta = random_floats(n);
  std::vector<float> y(x.size());
  const auto& k = kiln::kernels::norm_kernels(isa);
  for (auto _ : state) {
    k.layer_norm(x.data(), gamma.data(), beta.data(), 1e-5f, y.data(), nullptr, nullptr, rows, n);
    benchmark::ClobberMemory();
  }
  bytes_rate(state, rows * n);
}

void gelu(benchmark::State& state, Isa isa) {
  const int64_t n = state.range(0);
  auto x = random_floats(n);
  std::vector<float> y(x.size());
  const auto& k = kiln::kernels::norm_kernels(isa);
  for (auto _ : state) {
    k.gelu(x.data(), y.data(), n, false);
    benchmark::ClobberMemory();
  }
  bytes_rate(state, n);
}

// [64, 4, 64] -> [4, 64, 64] (attention heads split) and [4, 64, 64] -> [4, 64, 64]^T per head.
void transpose(benchmark::State& state) {
  const bool inner = state.range(0) != 0;
  auto x = random_floats(64 * 4 * 64);
  std::vector<float> y(x.size());
  const std::vector<int64_t> shape = {4, 64, 64};
  const std::vector<int64_t> strides =
      inner ? std::vector<int64_t>{4096, 1, 64} : std::vector<int64_t>{64, 256, 1};
  for (auto _ : state) {
    kiln::kernels::strided_copy(x.data(), y.data(), sizeof(float), shape, strides);
    benchmark::ClobberMemory();
  }
  bytes_rate(state, 64 * 4 * 64);
}

void register_all() {
  for (Isa isa : kiln::kernels::supported_isas()) {
    const std::string name = kiln::kernels::isa_name(isa);
    benchmark::RegisterBenchmark(("softmax/" + name).c_str(), softmax, isa)
        ->Args({256, 64})
        ->Args({64, 1000})
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("layer_norm/" + name).c_str(), layer_norm, isa)
        ->Args({64, 256})
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("gelu/" + name).c_str(), gelu, isa)
        ->Arg(64 * 1024)
        ->Unit(benchmark::kMicrosecond);
  }
  benchmark::RegisterBenchmark("transpose_heads", transpose)
      ->Arg(0)
      ->Arg(1)
      ->Unit(benchmark::kMicrosecond);
}

const int registered = (register_all(), 0);

}  // namespace
