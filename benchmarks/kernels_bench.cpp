// Kernel micro-benchmarks (Google Benchmark): the core's FMA peak, the packed matrix multiply,
// depthwise convolutions and im2col convolutions per ISA, reporting GFLOP/s (over CPU time).
// Run: build/kiln_kernels_bench [--benchmark_filter=depthwise/avx2]
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "kernels/conv/depthwise.h"
#include "kernels/conv/im2col.h"
#include "kernels/mmm/mmm.h"
#include "kernels/peak/fma_peak.h"

namespace {

using kiln::kernels::Isa;

void peak(benchmark::State& state, Isa isa) {
  const int64_t iters = 1 << 20;
  for (auto _ : state) benchmark::DoNotOptimize(kiln::kernels::fma_peak(isa, iters));
  state.counters["GFLOP/s"] = benchmark::Counter(
      kiln::kernels::fma_peak_flops(isa, iters) * static_cast<double>(state.iterations()) / 1e9,
      benchmark::Counter::kIsRate);
}

// C[m,n] = A[m,k] * B[k,n]. `packed_b`: B packed once (weights: MatMul, Gemm), `packed_a`: A
// packed once (weights: convolutions); the other operand is packed per run.
void matmul(benchmark::State& state, Isa isa, bool packed_b, bool packed_a) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  const int threads = static_cast<int>(state.range(3));
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> a(m * k), b(k * n), c(m * n);
  for (auto& x : a) x = d(rng);
  for (auto& x : b) x = d(rng);
  const auto& kernel = kiln::kernels::micro_kernel(isa);
  kiln::kernels::StridedSource sa(a.data(), m, k, k, 1, kernel.mr);
  kiln::kernels::StridedSource sb(b.data(), n, k, 1, n, kernel.nr);
  kiln::kernels::PackedMatrix pb(b.data(), n, k, 1, n, kernel.nr);
  kiln::kernels::PackedMatrix pa(a.data(), m, k, k, 1, kernel.mr);
  const kiln::kernels::PanelSource& src_b =
      packed_b ? static_cast<const kiln::kernels::PanelSource&>(pb) : sb;
  const kiln::kernels::PanelSource& src_a =
      packed_a ? static_cast<const kiln::kernels::PanelSource&>(pa) : sa;
  kiln::kernels::Epilogue ep;
  for (auto _ : state) {
    kiln::kernels::mmm(kernel, m, n, k, src_a, src_b, ep, c.data(), n, threads);
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * m * n * k * static_cast<double>(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
}

void shapes(benchmark::internal::Benchmark* b) {
  b->Args({512, 512, 512, 1})->Args({512, 512, 512, 2});
  // mobilenet_v2-like 1x1 convs (M = out channels, N = pixels, K = in channels) and BERT-like.
  b->Args({96, 12544, 16, 1})->Args({144, 3136, 24, 1})->Args({1280, 49, 320, 1});
  b->Args({960, 49, 160, 1})->Args({960, 49, 160, 2})->Args({16, 3025, 128, 1});
  b->Args({64, 1024, 256, 1})->Args({64, 256, 1024, 1});
  // tiny_bert's QKV projection, a 13x13 1x1 conv, squeezenet's 64-channel 55x55 squeeze, a
  // classifier (one row).
  b->Args({64, 768, 256, 1})->Args({1000, 169, 512, 1})->Args({64, 3025, 16, 1});
  b->Args({1, 1000, 1280, 1});
  // mobilenet_v2's projection 1x1 convs: few output channels, many pixels.
  b->Args({16, 12544, 32, 1})->Args({24, 3136, 144, 1});
  b->Unit(benchmark::kMicrosecond);
}

// Depthwise k x k (pad k / 2) on channels x size x size, stride s.
void depthwise(benchmark::State& state, Isa isa) {
  const int64_t channels = state.range(0), size = state.range(1), stride = state.range(2);
  const int64_t k = state.range(3);
  kiln::kernels::ConvGeometry g;
  g.in[1] = g.in[2] = size;
  g.kernel[1] = g.kernel[2] = k;
  g.stride[1] = g.stride[2] = stride;
  g.pad[1] = g.pad[2] = k / 2;
  g.out[1] = g.out[2] = (size + 2 * (k / 2) - k) / stride + 1;
  std::vector<float> x(channels * g.in_size(), 0.5f), w(channels * k * k, 0.25f), b(channels, 1.0f);
  std::vector<float> y(channels * g.out_size());
  kiln::kernels::DepthwiseArgs a;
  a.x = x.data();
  a.w = w.data();
  a.bias = b.data();
  a.y = y.data();
  a.channels = channels;
  a.geo = g;
  for (auto _ : state) {
    kiln::kernels::depthwise_conv_f32(a, 0, channels, isa);
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * k * k * channels * g.out_size() * static_cast<double>(state.iterations()) / 1e9,
      benchmark::Counter::kIsRate);
}

// A k x k convolution (pad k / 2, stride s) as packed weights x im2col panels: m output
// channels, c input channels, size x size.
void conv_im2col(benchmark::State& state, Isa isa) {
  const int64_t m = state.range(0), c = state.range(1), size = state.range(2), k = state.range(3);
  const int64_t s = state.range(4);
  kiln::kernels::ConvGeometry g;
  g.in[1] = g.in[2] = size;
  g.kernel[1] = g.kernel[2] = k;
  g.stride[1] = g.stride[2] = s;
  g.pad[1] = g.pad[2] = k / 2;
  g.out[1] = g.out[2] = (size + 2 * (k / 2) - k) / s + 1;
  const int64_t kin = c * k * k;
  std::vector<float> x(c * g.in_size(), 0.5f), w(m * kin, 0.25f), y(m * g.out_size());
  const auto& kernel = kiln::kernels::micro_kernel(isa);
  kiln::kernels::PackedMatrix pa(w.data(), m, kin, kin, 1, kernel.mr);
  std::vector<float> padded(kiln::kernels::Im2colSource::padded_floats(c, g));
  kiln::kernels::Epilogue ep;
  for (auto _ : state) {
    kiln::kernels::Im2colSource b(x.data(), c, g, kernel.nr, padded.data());
    kiln::kernels::mmm(kernel, m, g.out_size(), kin, pa, b, ep, y.data(), g.out_size(), 1);
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * m * kin * g.out_size() * static_cast<double>(state.iterations()) / 1e9,
      benchmark::Counter::kIsRate);
}

int register_all() {
  for (Isa isa : kiln::kernels::supported_isas()) {
    std::string name = kiln::kernels::isa_name(isa);
    benchmark::RegisterBenchmark(("fma_peak/" + name).c_str(), peak, isa)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("mmm/" + name).c_str(), matmul, isa, false, false)->Apply(shapes);
    benchmark::RegisterBenchmark(("mmm_packed_b/" + name).c_str(), matmul, isa, true, false)
        ->Apply(shapes);
    benchmark::RegisterBenchmark(("mmm_packed_a/" + name).c_str(), matmul, isa, false, true)
        ->Apply(shapes);
    benchmark::RegisterBenchmark(("depthwise/" + name).c_str(), depthwise, isa)
        ->Args({144, 56, 1, 3})
        ->Args({96, 112, 2, 3})
        ->Args({144, 56, 2, 3})
        ->Args({576, 14, 1, 3})
        ->Args({960, 7, 1, 3})
        ->Args({144, 56, 1, 5})
        ->Args({240, 28, 2, 5})
        // The rest of mobilenet_v2's depthwise layers.
        ->Args({32, 112, 1, 3})
        ->Args({192, 28, 1, 3})
        ->Args({192, 28, 2, 3})
        ->Args({384, 14, 1, 3})
        ->Args({576, 14, 2, 3})
        ->Unit(benchmark::kMicrosecond);
    // squeezenet1_1 fire expand 3x3 convs, mobilenet_v2's first conv.
    benchmark::RegisterBenchmark(("conv_im2col/" + name).c_str(), conv_im2col, isa)
        ->Args({64, 16, 55, 3, 1})
        ->Args({256, 64, 13, 3, 1})
        ->Args({32, 3, 224, 3, 2})
        ->Unit(benchmark::kMicrosecond);
  }
  return 0;
}
const int registered = register_all();

}  // namespace

BENCHMARK_MAIN();
