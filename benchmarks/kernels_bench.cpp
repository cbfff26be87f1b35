// Kernel micro-benchmarks (Google Benchmark): the core's FMA peak, the packed matrix multiply,
// depthwise convolutions, im2col convolutions and pooling per ISA, reporting GFLOP/s (over CPU
// time). Run: build/kiln_kernels_bench [--benchmark_filter=depthwise/avx2]
#include <benchmark/benchmark.h>

#include <memory>
#include <random>
#include <vector>

#include "benchmarks/peak/fma_peak.h"
#include "kernels/aligned_buffer.h"
#include "kernels/conv/conv_in_place.h"
#include "kernels/conv/conv_plan.h"
#include "kernels/conv/depthwise.h"
#include "kernels/conv/im2col.h"
#include "kernels/conv/winograd.h"
#include "kernels/mmm/mmm.h"
#include "kernels/mmm/mmm_in_place.h"
#include "kernels/pool/pool.h"
#include "kernels/quant/qmmm.h"

namespace {

using kiln::kernels::Isa;

void peak(benchmark::State& state, Isa isa) {
  const int64_t iters = 1 << 20;
  for (auto _ : state) benchmark::DoNotOptimize(kiln::kernels::fma_peak(isa, iters));
  state.counters["GFLOP/s"] = benchmark::Counter(
      kiln::kernels::fma_peak_flops(isa, iters) * static_cast<double>(state.iterations()) / 1e9,
      benchmark::Counter::kIsRate);
}

// A (m x k) and B (k x n) of uniform values in [-1, 1), the same for every benchmark of a shape.
void random_operands(int64_t m, int64_t n, int64_t k, std::vector<float>& a,
                     std::vector<float>& b) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> d(-1, 1);
  a.resize(m * k);
  b.resize(k * n);
  for (auto& x : a) x = d(rng);
  for (auto& x : b) x = d(rng);
}

// C[m,n] = A[m,k] * B[k,n]. `packed_b`: B packed once (weights: MatMul, Gemm), `packed_a`: A
// packed once (weights: convolutions); the other operand is packed per run.
void matmul(benchmark::State& state, Isa isa, bool packed_b, bool packed_a) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  const int threads = static_cast<int>(state.range(3));
  std::vector<float> a, b, c(m * n);
  random_operands(m, n, k, a, b);
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

// A 1x1 convolution of m output channels over an n-pixel plane of k channels (NCHW), one
// thread: `transposed` computes C^T = X^T W^T (pixels as the A side, packed per run; the weights
// packed once as B panels of output channels) into a buffer, then transposes it into the planes;
// otherwise W X (the weights as A panels, the planes packed per run as B).
void pointwise(benchmark::State& state, Isa isa, bool transposed) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  std::vector<float> w, x, y(m * n), t(m * n);
  random_operands(m, n, k, w, x);
  const auto& kernel = kiln::kernels::micro_kernel(isa);
  kiln::kernels::Epilogue ep;
  if (transposed) {
    kiln::kernels::PackedMatrix pb(w.data(), m, k, k, 1, kernel.nr);
    kiln::kernels::StridedSource sa(x.data(), n, k, 1, n, kernel.mr);
    const kiln::kernels::MmmPlan plan = kiln::kernels::plan_mmm(kernel, n, m, k, false, true, 1);
    kiln::kernels::AlignedFloats scratch(plan.scratch_floats);
    for (auto _ : state) {
      kiln::kernels::mmm(plan, sa, pb, ep, t.data(), m, scratch.data());
      for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) y[i * n + j] = t[j * m + i];
      benchmark::ClobberMemory();
    }
  } else {
    kiln::kernels::PackedMatrix pa(w.data(), m, k, k, 1, kernel.mr);
    kiln::kernels::StridedSource sb(x.data(), n, k, 1, n, kernel.nr);
    const kiln::kernels::MmmPlan plan = kiln::kernels::plan_mmm(kernel, m, n, k, true, false, 1);
    kiln::kernels::AlignedFloats scratch(plan.scratch_floats);
    for (auto _ : state) {
      kiln::kernels::mmm(plan, pa, sb, ep, y.data(), n, scratch.data());
      benchmark::ClobberMemory();
    }
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * m * n * k * static_cast<double>(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
}

// The same products with A packed once and B read in place (1x1 convolutions without packing).
void matmul_in_place(benchmark::State& state, Isa isa) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  const int threads = static_cast<int>(state.range(3));
  std::vector<float> a, b, c(m * n);
  random_operands(m, n, k, a, b);
  const auto& kernel = kiln::kernels::micro_kernel(isa);
  kiln::kernels::PackedMatrix pa(a.data(), m, k, k, 1, kernel.mr);
  kiln::kernels::Epilogue ep;
  for (auto _ : state) {
    kiln::kernels::mmm_in_place(kernel, m, n, k, pa, b.data(), n, ep, c.data(), n, threads);
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * m * n * k * static_cast<double>(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
}

// A 1x1 convolution as in a whole model: weights (A, packed once) cycled over `copies` distinct
// matrices so that, with enough of them (> L3), each run reads its weights from memory, B (the
// activations) packed per run. Args: m, n, k, copies.
void matmul_cold_a(benchmark::State& state, Isa isa) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  const int64_t copies = state.range(3);
  std::vector<float> a, b, c(m * n);
  random_operands(m, n, k, a, b);
  const auto& kernel = kiln::kernels::micro_kernel(isa);
  kiln::kernels::StridedSource sb(b.data(), n, k, 1, n, kernel.nr);
  std::vector<std::unique_ptr<kiln::kernels::PackedMatrix>> pa;
  for (int64_t i = 0; i < copies; i++) {
    pa.push_back(std::make_unique<kiln::kernels::PackedMatrix>(a.data(), m, k, k, 1, kernel.mr));
  }
  kiln::kernels::Epilogue ep;
  int64_t next = 0;
  for (auto _ : state) {
    kiln::kernels::mmm(kernel, m, n, k, *pa[static_cast<size_t>(next)], sb, ep, c.data(), n, 1);
    next = (next + 1) % copies;
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
  b->Args({24, 3136, 96, 1})->Args({32, 784, 192, 1})->Args({160, 49, 960, 1});
  b->Args({320, 49, 960, 1});
  // The same without their partial last column tile (49 = 3 x 16 + 1, 196 = 12 x 16 + 4), to
  // see what the edge costs.
  b->Args({160, 48, 960, 1})->Args({96, 196, 576, 1})->Args({96, 192, 576, 1});
  // squeezenet1_1's squeeze 1x1 convs.
  b->Args({32, 729, 256, 1})->Args({48, 169, 384, 1})->Args({64, 169, 512, 1});
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

// A k x k convolution (stride s; pad k / 2, or none when `valid`) as packed weights x im2col
// panels: m output channels, c input channels, size x size.
// `in_place`: B read in place from the padded input (conv_in_place) instead of im2col panels.
void conv_im2col(benchmark::State& state, Isa isa, bool valid, bool in_place) {
  const int64_t m = state.range(0), c = state.range(1), size = state.range(2), k = state.range(3);
  const int64_t s = state.range(4), pad = valid ? 0 : k / 2;
  kiln::kernels::ConvGeometry g;
  g.in[1] = g.in[2] = size;
  g.kernel[1] = g.kernel[2] = k;
  g.stride[1] = g.stride[2] = s;
  g.pad[1] = g.pad[2] = pad;
  g.out[1] = g.out[2] = (size + 2 * pad - k) / s + 1;
  const int64_t kin = c * k * k;
  std::vector<float> x(c * g.in_size(), 0.5f), w(m * kin, 0.25f), y(m * g.out_size());
  const auto& kernel = kiln::kernels::micro_kernel(isa);
  kiln::kernels::PackedMatrix pa(w.data(), m, kin, kin, 1, kernel.mr);
  std::vector<float> padded(kiln::kernels::Im2colSource::padded_floats(c, g));
  kiln::kernels::Epilogue ep;
  for (auto _ : state) {
    if (in_place) {
      kiln::kernels::conv_in_place(kernel, m, c, g, pa, x.data(), padded.data(), ep, y.data(), 1);
    } else {
      kiln::kernels::Im2colSource b(x.data(), c, g, kernel.nr, padded.data());
      kiln::kernels::mmm(kernel, m, g.out_size(), kin, pa, b, ep, y.data(), g.out_size(), 1);
    }
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * m * kin * g.out_size() * static_cast<double>(state.iterations()) / 1e9,
      benchmark::Counter::kIsRate);
}

// A grouped 3x3 pad-1 convolution (RegNet, ResNeXt): `groups` groups of `per` input and output
// channels, output size x size, stride s, one thread. `direct`: ConvKernel's grouped path (all
// groups in one pass, sums in registers); otherwise what it replaced: per group, im2col panels
// and a packed product.
void conv_grouped(benchmark::State& state, Isa isa, bool direct) {
  const int64_t groups = state.range(0), per = state.range(1), size = state.range(2);
  const int64_t s = state.range(3), c = groups * per;
  kiln::kernels::ConvGeometry g;
  g.in[1] = g.in[2] = size * s;
  g.kernel[1] = g.kernel[2] = 3;
  g.stride[1] = g.stride[2] = s;
  g.pad[1] = g.pad[2] = 1;
  g.out[1] = g.out[2] = size;
  const int64_t kin = per * 9, os = g.out_size();
  std::vector<float> x(c * g.in_size(), 0.5f), w(c * kin, 0.25f), y(c * os);
  kiln::kernels::Epilogue ep;
  ep.min = 0;
  if (direct) {
    kiln::kernels::ConvKernel kernel(w.data(), {c, per, 3, 3}, groups, isa, &g);
    const kiln::kernels::ConvPlan plan = kernel.plan(g, 1);
    kiln::kernels::AlignedFloats scratch(plan.scratch_floats);
    for (auto _ : state) {
      kernel.run(plan, x.data(), ep, y.data(), scratch.data());
      benchmark::ClobberMemory();
    }
  } else {
    const auto& kernel = kiln::kernels::micro_kernel(isa);
    std::vector<std::unique_ptr<kiln::kernels::PackedMatrix>> pa;
    for (int64_t grp = 0; grp < groups; grp++) {
      pa.push_back(std::make_unique<kiln::kernels::PackedMatrix>(w.data() + grp * per * kin, per,
                                                                 kin, kin, 1, kernel.mr));
    }
    const kiln::kernels::MmmPlan plan =
        kiln::kernels::plan_mmm(kernel, per, os, kin, true, false, 1);
    std::vector<float> padded(kiln::kernels::Im2colSource::padded_floats(per, g));
    kiln::kernels::AlignedFloats scratch(plan.scratch_floats);
    for (auto _ : state) {
      for (int64_t grp = 0; grp < groups; grp++) {
        kiln::kernels::Im2colSource b(x.data() + grp * per * g.in_size(), per, g, kernel.nr,
                                      padded.data());
        kiln::kernels::mmm(plan, *pa[static_cast<size_t>(grp)], b, ep, y.data() + grp * per * os,
                           os, scratch.data());
      }
      benchmark::ClobberMemory();
    }
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * c * kin * os * static_cast<double>(state.iterations()) / 1e9,
                         benchmark::Counter::kIsRate);
}

// A 3x3 stride-1 pad-1 convolution through Winograd F(tile x tile, 3x3): m output, c input
// channels, size x size, on `threads` threads; GFLOP/s counts the direct conv's multiply-adds (9
// per output and input channel), so it compares with conv_im2col's.
void conv_winograd(benchmark::State& state, Isa isa) {
  const int64_t m = state.range(0), c = state.range(1), size = state.range(2);
  const int threads = static_cast<int>(state.range(3)), tile = static_cast<int>(state.range(4));
  kiln::kernels::ConvGeometry g;
  g.in[1] = g.in[2] = g.out[1] = g.out[2] = size;
  g.kernel[1] = g.kernel[2] = 3;
  g.pad[1] = g.pad[2] = 1;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> x(c * g.in_size()), w(m * c * 9), y(m * g.out_size());
  for (auto& v : x) v = d(rng);
  for (auto& v : w) v = d(rng);
  kiln::kernels::WinogradWeights ww(w.data(), m, c, kiln::kernels::micro_kernel(isa), tile);
  std::vector<float> padded(kiln::kernels::winograd_padded_floats(c, g, tile));
  std::vector<float> scratch(kiln::kernels::winograd_scratch_floats(ww, g, threads));
  kiln::kernels::Epilogue ep;
  ep.min = 0;  // the fire modules' Relu
  for (auto _ : state) {
    kiln::kernels::winograd_conv(ww, x.data(), g, ep, y.data(), padded.data(), scratch.data(),
                                 threads);
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * m * c * 9 * g.out_size() * static_cast<double>(state.iterations()) / 1e9,
      benchmark::Counter::kIsRate);
}

// Only the im2col B panels of conv_im2col's geometries (c input channels, size x size, k x k,
// stride s, pad p) for panel width w, all of them once per iteration: floats packed per second.
void im2col_panels(benchmark::State& state) {
  const int64_t c = state.range(0), size = state.range(1), k = state.range(2);
  const int64_t s = state.range(3), pad = state.range(4);
  const int width = static_cast<int>(state.range(5));
  kiln::kernels::ConvGeometry g;
  g.in[1] = g.in[2] = size;
  g.kernel[1] = g.kernel[2] = k;
  g.stride[1] = g.stride[2] = s;
  g.pad[1] = g.pad[2] = pad;
  g.out[1] = g.out[2] = (size + 2 * pad - k) / s + 1;
  std::vector<float> x(c * g.in_size(), 0.5f);
  std::vector<float> padded(kiln::kernels::Im2colSource::padded_floats(c, g));
  const int64_t panels = (g.out_size() + width - 1) / width;
  std::vector<float> scratch(c * k * k * width);
  for (auto _ : state) {
    kiln::kernels::Im2colSource b(x.data(), c, g, width, padded.data());
    for (int64_t p = 0; p < panels; p++) benchmark::DoNotOptimize(b.panel(p, scratch.data()));
    benchmark::ClobberMemory();
  }
  state.counters["Gfloat/s"] = benchmark::Counter(
      static_cast<double>(panels * scratch.size()) * static_cast<double>(state.iterations()) / 1e9,
      benchmark::Counter::kIsRate);
}

// Max pool k x k, stride s, no padding, of channels x size x size (squeezenet1_1's 3x3 s2).
void max_pool(benchmark::State& state, Isa isa) {
  const int64_t channels = state.range(0), size = state.range(1), k = state.range(2);
  const int64_t s = state.range(3);
  kiln::kernels::MaxPool2dGeometry g;
  g.in_h = g.in_w = size;
  g.kernel_h = g.kernel_w = k;
  g.stride_h = g.stride_w = s;
  g.out_h = g.out_w = (size - k) / s + 1;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> x(channels * size * size), y(channels * g.out_h * g.out_w), row(size + 1);
  for (auto& v : x) v = d(rng);
  const auto& kern = kiln::kernels::pool_kernels(isa);
  for (auto _ : state) {
    kern.max_pool_2d(x.data(), y.data(), channels, g, row.data());
    benchmark::ClobberMemory();
  }
  state.counters["Gfloat/s"] = benchmark::Counter(
      static_cast<double>(x.size()) * static_cast<double>(state.iterations()) / 1e9,
      benchmark::Counter::kIsRate);
}

// Global average pool of channels x size x size.
void average_pool(benchmark::State& state, Isa isa) {
  const int64_t channels = state.range(0), size = state.range(1);
  std::vector<float> x(channels * size * size, 0.5f), y(channels);
  const auto& kern = kiln::kernels::pool_kernels(isa);
  for (auto _ : state) {
    kern.average_planes(x.data(), y.data(), channels, size * size);
    benchmark::ClobberMemory();
  }
  state.counters["Gfloat/s"] = benchmark::Counter(
      static_cast<double>(x.size()) * static_cast<double>(state.iterations()) / 1e9,
      benchmark::Counter::kIsRate);
}

// The int8 product of a 1x1 convolution as QConvPacked runs it: s8 weights A (m x k, symmetric,
// packed once), u8 activations B (k x n, zero point 3) packed per run, u8 outputs requantized
// with a per-row multiplier and offset and a fused clamp. Reports GMAC/s (over CPU time).
void qmatmul(benchmark::State& state, const kiln::kernels::QMicroKernel* kern) {
  namespace kk = kiln::kernels;
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  std::mt19937 rng(1);
  std::vector<uint8_t> a(m * k), b(k * n), c(m * n);
  for (auto& x : a) x = static_cast<uint8_t>(static_cast<int8_t>(rng() % 255 - 127));
  for (auto& x : b) x = static_cast<uint8_t>(rng() % 256);
  std::vector<float> mult(m, 1.0f / 4096);
  std::vector<int32_t> offsets(m, 100);
  const int32_t bzp = 3;
  kk::QOperand qa;
  qa.data = a.data();
  qa.is_signed = true;
  qa.stride_lane = k;
  qa.stride_k = 1;
  kk::QOperand qb;
  qb.data = b.data();
  qb.stride_lane = 1;
  qb.stride_k = n;
  qb.zp = &bzp;
  kk::AlignedFloats pa((kk::qpacked_bytes(*kern, true, m, k) + 3) / 4);
  kk::AlignedFloats pb((kk::qpacked_bytes(*kern, false, n, k) + 3) / 4);
  kk::qpack(*kern, true, qa, m, k, pa.data());
  kk::Epilogue ep;
  ep.output = kk::OutputType::U8;
  ep.out_zero_point = 0;
  ep.min = 0;
  ep.max = 200;
  ep.row_scale = mult.data();
  ep.row_offset = offsets.data();
  for (auto _ : state) {
    kk::qpack(*kern, false, qb, n, k, pb.data());
    kk::qmmm(*kern, m, n, k, pa.data(), pb.data(), ep, c.data(), n, 1);
    benchmark::ClobberMemory();
  }
  state.counters["GMAC/s"] = benchmark::Counter(
      static_cast<double>(m * n * k) * static_cast<double>(state.iterations()) / 1e9,
      benchmark::Counter::kIsRate);
}

// An int8 3x3 depthwise conv of c channels on h x w planes (stride s, padding 1), u8 in and out,
// through the per-plane kernel (blocks = false) or the channel-block kernel.
void qdepthwise(benchmark::State& state, const kiln::kernels::QMicroKernel* kern, bool blocks) {
  namespace kk = kiln::kernels;
  const int64_t c = state.range(0), h = state.range(1), s = state.range(2);
  const int64_t oh = (h + 2 - 3) / s + 1;
  kk::QDepthwisePlane g{h, h, oh, oh, 3, 3, s, s, 1, 1, 1, 1};
  std::mt19937 rng(5);
  std::vector<uint8_t> x(static_cast<size_t>(c * h * h)), y(static_cast<size_t>(c * oh * oh));
  for (auto& v : x) v = static_cast<uint8_t>(rng() % 256);
  std::vector<int32_t> wt(static_cast<size_t>(c * 9)), offsets(static_cast<size_t>(c), 100),
      acc(static_cast<size_t>(oh * oh));
  for (auto& v : wt) v = static_cast<int32_t>(rng() % 255) - 127;
  std::vector<float> mult(static_cast<size_t>(c), 1.0f / 4096);
  kk::Epilogue ep;
  ep.output = kk::OutputType::U8;
  ep.min = 0;
  ep.max = 200;
  ep.row_scale = mult.data();
  ep.row_offset = offsets.data();
  kk::AlignedFloats plane_scratch((kk::qdepthwise_scratch_bytes(g) + 3) / 4);
  kk::AlignedFloats block_scratch((kk::qdepthwise_channels_scratch_bytes(g) + 3) / 4);
  const int64_t plane = oh * oh, lanes = kern->dw_lanes;
  for (auto _ : state) {
    if (blocks) {
      for (int64_t c0 = 0; c0 < c; c0 += lanes) {
        kk::QTileArgs t = kk::qtile_args(ep, y.data(), plane, c0, 0);
        kern->depthwise_channels(g, x.data() + c0 * h * h, h * h, false, 7, wt.data() + c0 * 9,
                                 std::min(lanes, c - c0), t, block_scratch.data());
      }
    } else {
      for (int64_t ch = 0; ch < c; ch++)
        kern->depthwise(g, x.data() + ch * h * h, false, 7, wt.data() + ch * 9,
                        kk::qtile_args(ep, y.data(), plane, ch, 0), acc.data(),
                        plane_scratch.data(), ch > 0);
    }
    benchmark::ClobberMemory();
  }
  state.counters["ns/output"] =
      benchmark::Counter(static_cast<double>(c * plane) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

int register_all() {
  // mobilenet_v2's int8 depthwise convs (channels, input size, stride), both kernels.
  for (const auto* kern : kiln::kernels::supported_q_kernels()) {
    for (bool blocks : {false, true}) {
      benchmark::RegisterBenchmark(
          (std::string(blocks ? "qdepthwise_blocks/" : "qdepthwise/") + kern->name).c_str(),
          qdepthwise, kern, blocks)
          ->Args({960, 7, 1})
          ->Args({576, 14, 2})
          ->Args({384, 14, 1})
          ->Args({192, 28, 2})
          ->Args({192, 28, 1})
          ->Args({144, 56, 2})
          ->Args({144, 56, 1})
          ->Args({96, 112, 2})
          ->Args({32, 112, 1})
          ->Unit(benchmark::kMicrosecond);
    }
  }
  // mobilenet_v2's int8 1x1 convs (m out channels, n positions, k in channels) and its classifier.
  for (const auto* kern : kiln::kernels::supported_q_kernels()) {
    benchmark::RegisterBenchmark((std::string("qmmm/") + kern->name).c_str(), qmatmul, kern)
        ->Args({96, 12544, 16})
        ->Args({16, 12544, 32})
        ->Args({144, 3136, 24})
        ->Args({24, 3136, 144})
        ->Args({576, 196, 96})
        ->Args({96, 196, 576})
        ->Args({960, 49, 160})
        ->Args({160, 49, 960})
        ->Args({1280, 49, 320})
        ->Args({1, 1000, 1280})
        ->Unit(benchmark::kMicrosecond);
  }

  for (Isa isa : kiln::kernels::supported_isas()) {
    std::string name = kiln::kernels::isa_name(isa);
    benchmark::RegisterBenchmark(("fma_peak/" + name).c_str(), peak, isa)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("mmm/" + name).c_str(), matmul, isa, false, false)->Apply(shapes);
    benchmark::RegisterBenchmark(("mmm_packed_b/" + name).c_str(), matmul, isa, true, false)
        ->Apply(shapes);
    benchmark::RegisterBenchmark(("mmm_packed_a/" + name).c_str(), matmul, isa, false, true)
        ->Apply(shapes);
    if (kiln::kernels::micro_kernel(isa).in_place) {
      benchmark::RegisterBenchmark(("mmm_in_place/" + name).c_str(), matmul_in_place, isa)
          ->Apply(shapes);
    }
    for (bool t : {false, true}) {
      benchmark::RegisterBenchmark(((t ? "pointwise_t/" : "pointwise/") + name).c_str(), pointwise,
                                   isa, t)
          ->Args({400, 49, 400})
          ->Args({256, 3136, 256})
          ->Args({512, 784, 512})
          ->Args({1024, 196, 1024})
          ->Args({2048, 49, 1024})
          ->Args({1000, 169, 512})
          ->Args({256, 169, 64})
          ->Args({160, 196, 160})
          ->Args({512, 196, 1024})
          ->Args({1280, 49, 320})
          ->Unit(benchmark::kMicrosecond);
    }
    // mobilenet_v2's late 1x1 convs with their weights read from memory (64 copies > L3).
    benchmark::RegisterBenchmark(("mmm_cold_a/" + name).c_str(), matmul_cold_a, isa)
        ->Args({160, 49, 960, 64})
        ->Args({320, 49, 960, 64})
        ->Args({960, 49, 160, 64})
        ->Args({1280, 49, 320, 64})
        ->Args({96, 196, 576, 64})
        ->Args({576, 196, 96, 64})
        ->Args({64, 196, 384, 64})
        ->Unit(benchmark::kMicrosecond);
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
        // The 112 -> 56 stride-2 layer on few channels: its input stays in L2.
        ->Args({8, 112, 2, 3})
        ->Args({2, 112, 2, 3})
        ->Unit(benchmark::kMicrosecond);
    // squeezenet1_1 fire expand 3x3 convs, mobilenet_v2's first conv.
    benchmark::RegisterBenchmark(("conv_im2col/" + name).c_str(), conv_im2col, isa, false, false)
        ->Args({64, 16, 55, 3, 1})
        ->Args({128, 32, 27, 3, 1})
        ->Args({256, 64, 13, 3, 1})
        ->Args({192, 48, 13, 3, 1})
        ->Args({64, 16, 55, 3, 1})
        ->Args({32, 3, 224, 3, 2})
        ->Unit(benchmark::kMicrosecond);
    // The stride-1 ones with B read in place from the padded input.
    if (kiln::kernels::micro_kernel(isa).in_place) {
      benchmark::RegisterBenchmark(("conv_in_place/" + name).c_str(), conv_im2col, isa, false, true)
          ->Args({64, 16, 55, 3, 1})
          ->Args({128, 32, 27, 3, 1})
          ->Args({256, 64, 13, 3, 1})
          ->Unit(benchmark::kMicrosecond);
    }
    // RegNet-X-400MF's grouped convs (16 channels per group) and ResNeXt's (32 groups of 4..32).
    for (bool direct : {true, false}) {
      benchmark::RegisterBenchmark(
          ((direct ? "conv_grouped/" : "conv_grouped_per_group/") + name).c_str(), conv_grouped,
          isa, direct)
          ->Args({2, 16, 56, 2})
          ->Args({4, 16, 28, 1})
          ->Args({10, 16, 14, 1})
          ->Args({25, 16, 7, 1})
          ->Args({25, 16, 7, 2})
          ->Args({32, 4, 56, 1})
          ->Args({32, 8, 28, 2})
          ->Args({32, 16, 14, 2})
          ->Args({32, 16, 14, 1})
          ->Args({32, 32, 7, 2})
          ->Args({32, 32, 7, 1})
          ->Unit(benchmark::kMicrosecond);
    }
    // The same fire expand 3x3 convs (and fire 7's) through Winograd F(2x2, 3x3) and F(4x4, 3x3)
    // (last argument), on 1 and 2 threads (wall time).
    benchmark::RegisterBenchmark(("conv_winograd/" + name).c_str(), conv_winograd, isa)
        ->ArgsProduct({{64}, {16}, {55}, {1, 2}, {2, 4}})
        ->ArgsProduct({{128}, {32}, {27}, {1}, {2, 4}})
        ->ArgsProduct({{192}, {48}, {13}, {1}, {2, 4}})
        ->ArgsProduct({{256}, {64}, {13}, {1, 2}, {2, 4}})
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond);
    // squeezenet1_1's first conv (no padding).
    benchmark::RegisterBenchmark(("conv_im2col_valid/" + name).c_str(), conv_im2col, isa, true,
                                 false)
        ->Args({64, 3, 224, 3, 2})
        ->Unit(benchmark::kMicrosecond);
    // squeezenet1_1's max pools; its and mobilenet_v2's global average pools.
    benchmark::RegisterBenchmark(("max_pool/" + name).c_str(), max_pool, isa)
        ->Args({64, 111, 3, 2})
        ->Args({128, 55, 3, 2})
        ->Args({256, 27, 3, 2})
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("global_average_pool/" + name).c_str(), average_pool, isa)
        ->Args({1000, 13})
        ->Args({1280, 7})
        ->Unit(benchmark::kMicrosecond);
  }
  // c, size, k, stride, pad, panel width: the conv_im2col shapes at the AVX2 and AVX-512 widths.
  auto* panels = benchmark::RegisterBenchmark("im2col_panels", im2col_panels);
  for (int64_t width : {16, 32}) {
    panels->Args({16, 55, 3, 1, 1, width})->Args({32, 27, 3, 1, 1, width});
    panels->Args({64, 13, 3, 1, 1, width})->Args({3, 224, 3, 2, 1, width});
    panels->Args({3, 224, 3, 2, 0, width});
  }
  panels->Unit(benchmark::kMicrosecond);
  return 0;
}
const int registered = register_all();

}  // namespace

BENCHMARK_MAIN();
