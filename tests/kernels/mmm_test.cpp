// Packed matrix multiply vs a double-precision reference, for every ISA this machine has.
//
// Tolerance: each output is a k-term float32 dot product, summed in a different order (FMA,
// panels) than the reference. Rounding errors of such sums grow like sqrt(k) * eps * the terms'
// magnitude; we allow 16 * eps * sum_k |a_ik * b_kj| (+ eps-level slack for the epilogue), which
// is far above that (k <= 4096) but far below the error of any indexing mistake: a missing or
// wrong term changes the result by about |a * b| ~ sum / k, i.e. >= 60x the tolerance at k=4096.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "base/threading.h"
#include "kernels/epilogue.h"
#include "kernels/mmm/mmm.h"
#include "tests/kernels/kernel_test_util.h"

namespace kiln {
namespace {

using kernels::Epilogue;
using kernels::Isa;
using kernels::MicroKernel;
using test::EpilogueData;
using test::expect_matches;
using test::kEps;
using test::make_epilogue;
using test::random_vector;

struct Case {
  int64_t m, n, k;
};

// Checks C = epilogue(A * B) for row-major A (m x k, row stride k + pad_a), B (k x n) given in
// the layout `b_transposed` says, through the sources `how` picks (0 strided, 1 packed A, 2 packed
// B, 3 both packed).
void check(const MicroKernel& kernel, const Case& c, int mask, int how, bool b_transposed,
           int threads, std::mt19937& rng) {
  SCOPED_TRACE(::testing::Message() << kernel.name << " m=" << c.m << " n=" << c.n << " k=" << c.k
                                    << " epilogue=" << mask << " sources=" << how
                                    << " bt=" << b_transposed << " threads=" << threads);
  const int64_t lda = c.k + 1;
  auto a = random_vector(rng, c.m * lda);
  auto b = random_vector(rng, c.k * c.n);
  auto bmat = [&](int64_t kk, int64_t j) {
    return b_transposed ? b[j * c.k + kk] : b[kk * c.n + j];
  };
  EpilogueData e = make_epilogue(rng, mask, c.m, c.n);
  // Two guard rows after C: tiles at the bottom border must not write past row m - 1.
  const int64_t ldc = c.n + 2;
  auto out = random_vector(rng, (c.m + 2) * ldc);
  auto before = out;

  int64_t b_sl = b_transposed ? c.k : 1, b_sk = b_transposed ? 1 : c.n;
  kernels::StridedSource sa(a.data(), c.m, c.k, lda, 1, kernel.mr);
  kernels::StridedSource sb(b.data(), c.n, c.k, b_sl, b_sk, kernel.nr);
  kernels::PackedMatrix pa(a.data(), c.m, c.k, lda, 1, kernel.mr);
  kernels::PackedMatrix pb(b.data(), c.n, c.k, b_sl, b_sk, kernel.nr);
  const kernels::PanelSource& src_a = (how & 1) ? static_cast<const kernels::PanelSource&>(pa) : sa;
  const kernels::PanelSource& src_b = (how & 2) ? static_cast<const kernels::PanelSource&>(pb) : sb;
  kernels::mmm(kernel, c.m, c.n, c.k, src_a, src_b, e.ep, out.data(), ldc, threads);

  expect_matches(c.m, c.n, e, out, before, ldc, [&](int64_t i, int64_t j) {
    double acc = 0, mag = 0;
    for (int64_t kk = 0; kk < c.k; kk++) {
      double t = double(a[i * lda + kk]) * bmat(kk, j);
      acc += t;
      mag += std::fabs(t);
    }
    return std::pair<double, double>{acc, mag};
  });
}

std::vector<const MicroKernel*> kernels_here() {
  std::vector<const MicroKernel*> out;
  for (Isa isa : kernels::supported_isas()) out.push_back(&kernels::micro_kernel(isa));
  return out;
}

// Post steps (stage 2) run on each block of stored outputs: element-wise on whole vectors, so
// the product with post steps is bitwise the product without them followed by the same steps
// over the whole matrix at once, whatever the blocking (per tile at edges, per row band of
// whole tiles otherwise), the sources and the thread count. The operands' values differ per
// row and per column, so a step applied at the wrong offset, twice or not at all is caught.
TEST(KernelsMmm, PostStepsEqualOnePassOverTheWholeOutput) {
  std::mt19937 rng(31);
  for (const MicroKernel* k : kernels_here()) {
    for (Case c : {Case{k->mr * 3, k->nr * 9, 17}, Case{k->mr * 2 + 3, k->nr * 12 + 5, 40},
                   Case{1, 3 * k->nr + 1, 8}, Case{50, 7, 5}, Case{130, 300, 33}}) {
      for (int threads : {1, 2}) {
        SCOPED_TRACE(::testing::Message()
                     << k->name << " m=" << c.m << " n=" << c.n << " threads=" << threads);
        const int64_t ldc = c.n + 3;
        auto a = random_vector(rng, c.m * c.k);
        auto b = random_vector(rng, c.k * c.n);
        auto full = random_vector(rng, c.m * ldc);
        auto row = random_vector(rng, c.m);
        auto col = random_vector(rng, c.n);
        kernels::PackedMatrix pa(a.data(), c.m, c.k, c.k, 1, k->mr);
        kernels::StridedSource sb(b.data(), c.n, c.k, 1, c.n, k->nr);
        EpilogueData e = make_epilogue(rng, 4 | 8 | 128, c.m, c.n);
        Epilogue with = e.ep;
        auto step = [&](kernels::PostStep p) { with.post[with.post_count++] = p; };
        kernels::PostStep p;
        p.kind = kernels::PostStep::Kind::Unary;
        p.unary = kernels::UnaryFn::Gelu;
        step(p);
        p.kind = kernels::PostStep::Kind::Binary;
        p.binary = kernels::BinaryFn::Mul;
        p.operand_kind = kernels::PostStep::Operand::Full;
        p.operand = full.data();
        p.ld = ldc;
        step(p);
        p.binary = kernels::BinaryFn::Sub;
        p.operand_kind = kernels::PostStep::Operand::Row;
        p.operand = row.data();
        p.operand_first = true;
        step(p);
        p.binary = kernels::BinaryFn::Max;
        p.operand_kind = kernels::PostStep::Operand::Col;
        p.operand = col.data();
        p.operand_first = false;
        step(p);
        p.kind = kernels::PostStep::Kind::Unary;
        p.unary = kernels::UnaryFn::Sigmoid;
        step(p);
        std::vector<float> got(static_cast<size_t>(c.m * ldc), 7.0f), want = got;
        kernels::mmm(*k, c.m, c.n, c.k, pa, sb, with, got.data(), ldc, threads);
        kernels::mmm(*k, c.m, c.n, c.k, pa, sb, e.ep, want.data(), ldc, threads);
        kernels::apply_post_steps(with, want.data(), ldc, c.m, c.n, 0, 0);
        int bad = 0;
        for (size_t i = 0; i < got.size(); i++)
          if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0 && bad++ < 5)
            ADD_FAILURE() << "at " << i / ldc << "," << i % ldc << ": " << got[i] << " vs "
                          << want[i];
        EXPECT_EQ(bad, 0);
      }
    }
  }
}

TEST(KernelsMmm, EveryIsaHasAKernelAndGenericIsAlwaysThere) {
  auto isas = kernels::supported_isas();
  ASSERT_FALSE(isas.empty());
  EXPECT_EQ(isas.front(), Isa::Generic);
  for (Isa isa : isas) {
    const auto& k = kernels::micro_kernel(isa);
    EXPECT_EQ(k.isa, isa);
    EXPECT_LE(k.mr * k.nr, 64 * 64);
  }
}

TEST(KernelsMmm, RandomShapesAllSources) {
  std::mt19937 rng(42);
  std::vector<Case> cases = {{1, 1, 1},    {1, 1, 0},      {1, 37, 5},   {3, 1, 17}, {8, 32, 64},
                             {7, 31, 13},  {9, 33, 1},     {6, 16, 100}, {5, 15, 3}, {13, 47, 29},
                             {64, 64, 64}, {17, 100, 257}, {100, 3, 40}, {2, 200, 9}};
  std::uniform_int_distribution<int64_t> dim(1, 300);
  for (int i = 0; i < 6; i++) cases.push_back({dim(rng), dim(rng), dim(rng)});
  for (const MicroKernel* k : kernels_here()) {
    for (size_t ci = 0; ci < cases.size(); ci++) {
      check(*k, cases[ci], 0, static_cast<int>(ci % 4), ci % 3 == 1, 1, rng);
    }
  }
}

// Many rows, few columns, B packed per run (late 1x1 convolutions): mmm packs all of B first and
// runs A panel outer. Edge tiles in both directions, every epilogue input, 1 and 2 threads.
TEST(KernelsMmm, ManyRowsFewColumnsAPanelOuter) {
  std::mt19937 rng(5);
  for (const MicroKernel* k : kernels_here()) {
    for (Case c : {Case{500, 49, 160}, Case{97, 2 * k->nr + 1, 33}, Case{64, 2 * k->nr, 7}}) {
      for (int threads : {1, 2}) {
        check(*k, c, 1 | 2 | 4 | 8 | 16 | 32 | 128, 0, false, threads, rng);
        check(*k, c, 4 | 128 | 256, 1, true, threads, rng);
      }
    }
  }
}

// Every remainder of m by mr and of n by nr (1 .. 2 tiles + 1 in each direction), so every
// rows x cols shape of a partial tile runs, with the epilogue features, operand sources, layouts
// and thread counts rotating over the cases.
TEST(KernelsMmm, EveryPartialTileShape) {
  std::mt19937 rng(13);
  const std::vector<int> masks = {0,
                                  1 | 2 | 4 | 8,
                                  16,
                                  32,
                                  64 | 128,
                                  128,
                                  128 | 256,
                                  512 | 256,
                                  2 | 8 | 16 | 32 | 64,
                                  1 | 2 | 4 | 8 | 16 | 32 | 64 | 256 | 512,
                                  4 | 16 | 128 | 1024,
                                  2 | 8 | 16 | 32 | 64 | 128 | 256 | 1024};
  for (const MicroKernel* k : kernels_here()) {
    int i = 0;
    for (int64_t m = 1; m <= 2 * k->mr + 1; m++) {
      for (int64_t n = 1; n <= 2 * k->nr + 1; n++, i++) {
        const int64_t depth = (i % 3 == 0) ? 1 : (i % 3 == 1 ? 7 : 40);
        check(*k, {m, n, depth}, masks[i % masks.size()], i % 4, i % 5 == 2, 1 + i % 2, rng);
      }
    }
  }
}

// Kernels without an edge tile (NEON) compute partial tiles whole into a scratch tile: the same
// kernels with their edge (and, as NEON, in-place) functions removed take that path on any
// machine, one-column last panels (n = 1, 49) included.
TEST(KernelsMmm, ScratchTilePathForKernelsWithoutEdgeTiles) {
  std::mt19937 rng(19);
  for (const MicroKernel* k : kernels_here()) {
    MicroKernel no_edge = *k;
    no_edge.edge = nullptr;
    no_edge.in_place = nullptr;
    int i = 0;
    for (Case c : {Case{k->mr + 1, k->nr + 3, 9}, Case{2 * k->mr - 1, 1, 30}, Case{3, 49, 64}}) {
      for (int mask : {0, 1 | 2 | 4 | 8 | 128, 16 | 32 | 64, 1 | 2 | 4 | 8 | 16 | 32 | 256 | 512,
                       4 | 16 | 128 | 1024}) {
        check(no_edge, c, mask, i % 4, i % 3 == 1, 1 + i % 2, rng);
        i++;
      }
    }
  }
}

// Shapes of real layers whose tiles are mostly partial in one direction: 64 tokens (BERT), 7x7
// and 13x13 planes, one row (a classifier), k up to 4096.
TEST(KernelsMmm, LayerShapesWithPartialTiles) {
  std::mt19937 rng(17);
  for (const MicroKernel* k : kernels_here()) {
    for (Case c : {Case{64, 100, 256}, Case{1, 200, 4096}, Case{3, 49, 320}, Case{40, 169, 64},
                   Case{33, 49, 16}, Case{100, 1, 300}, Case{16, 35, 1000}}) {
      check(*k, c, 1 | 8 | 128, 1, false, 1, rng);
      check(*k, c, 2 | 4 | 16 | 32 | 64, 2, true, 2, rng);
    }
  }
}

TEST(KernelsMmm, LongK) {
  std::mt19937 rng(7);
  for (const MicroKernel* k : kernels_here()) {
    check(*k, {9, 35, 4096}, 4 | 128, 2, false, 1, rng);
    check(*k, {k->mr, k->nr, 4095}, 0, 0, true, 1, rng);
  }
}

TEST(KernelsMmm, EveryEpilogue) {
  std::mt19937 rng(3);
  std::vector<int> masks = {1,
                            2,
                            4,
                            8,
                            16,
                            32,
                            64,
                            128,
                            128 | 256,
                            512 | 256,
                            1 | 4 | 128,
                            2 | 8 | 16 | 64,
                            1 | 2 | 4 | 8 | 16 | 32 | 64 | 512 | 256,
                            16 | 1024,
                            4 | 16 | 128 | 1024,
                            1 | 16 | 64 | 256 | 1024};
  for (const MicroKernel* k : kernels_here()) {
    for (int mask : masks) {
      // Full tiles and edge tiles both.
      check(*k, {2 * k->mr, 2 * k->nr, 19}, mask, 3, false, 1, rng);
      check(*k, {2 * k->mr + 3, k->nr + 5, 33}, mask, 0, false, 1, rng);
    }
  }
}

TEST(KernelsMmm, ThreadCountDoesNotChangeResults) {
  std::mt19937 rng(11);
  for (const MicroKernel* k : kernels_here()) {
    // B split over threads (the first and third), A split with B packed by the threads first
    // (the second: B too narrow to share; the fourth: A much larger than B). Each thread count
    // cuts the job into other chunks (up to kChunksPerThread per thread).
    for (Case c : {Case{70, 333, 129}, Case{300, 20, 77}, Case{33, 1000, 64}, Case{600, 90, 200}}) {
      constexpr int kCounts[] = {1, 2, 3, 4, 5, 8};
      std::vector<float> results[6];
      for (int i = 0; i < 6; i++) {
        const int t = kCounts[i];
        std::mt19937 same(99);
        auto a = random_vector(same, c.m * c.k);
        auto b = random_vector(same, c.k * c.n);
        auto bias = random_vector(same, c.m);
        Epilogue ep;
        ep.row_bias = bias.data();
        ep.min = 0;
        results[i].assign(c.m * c.n, 0.0f);
        kernels::StridedSource sa(a.data(), c.m, c.k, c.k, 1, k->mr);
        kernels::StridedSource sb(b.data(), c.n, c.k, 1, c.n, k->nr);
        kernels::mmm(*k, c.m, c.n, c.k, sa, sb, ep, results[i].data(), c.n, t);
      }
      for (int i = 1; i < 6; i++) EXPECT_EQ(results[0], results[i]) << k->name << " " << kCounts[i];
    }
    check(*k, {70, 333, 129}, 4 | 128, 0, false, 2, rng);
    check(*k, {300, 20, 77}, 8, 3, true, 3, rng);
    check(*k, {600, 90, 200}, 1 | 128, 1, false, 5, rng);
  }
}

// n = q * nr + 1 (a 7x7 plane: 49 = 3 * 16 + 1): with B packed per run, mmm narrows the last,
// one-column panel in place and reads it through the kernel's in-place tile (kernels without one,
// and prepacked B, keep the edge tile). Every source (B per run: narrowed; B prepacked: not),
// both B layouts, every epilogue input, partial row panels, k from 1 to 4096 (the narrowed column
// is k floats: its last ones must not be lost or shifted), 1 to 4 threads (B split over threads,
// or A split with B packed once for all of them and narrowed there), each bitwise equal to one.
TEST(KernelsMmm, OneColumnLastPanel) {
  std::mt19937 rng(23);
  const std::vector<int> masks = {0, 1 | 2 | 4 | 8 | 128, 16 | 32 | 64,
                                  1 | 2 | 4 | 8 | 16 | 32 | 64 | 256 | 512, 2 | 8 | 32 | 128 | 256};
  for (const MicroKernel* k : kernels_here()) {
    const int64_t nr = k->nr, mr = k->mr;
    std::vector<Case> cases = {{1, 1, 1},
                               {mr, 1, 33},
                               {mr - 1, nr + 1, 2},
                               {160, 3 * nr + 1, 960},
                               {27 * mr + 4, 3 * nr + 1, 577},
                               {mr + 1, 5 * nr + 1, 4096},
                               {2, 2 * nr + 1, 3}};
    std::uniform_int_distribution<int64_t> dim(1, 300), q(0, 8);
    for (int i = 0; i < 4; i++) cases.push_back({dim(rng), q(rng) * nr + 1, dim(rng)});
    int i = 0;
    for (const Case& c : cases) {
      for (int how : {0, 1, 2, 3}) {
        check(*k, c, masks[static_cast<size_t>(i) % masks.size()], how, i % 3 == 1, 1 + i % 4, rng);
        i++;
      }
    }
    // Thread counts: the same bits. Few B panels and many A panels split A (B packed once and
    // narrowed up front); many B panels split B (each thread narrows its own copy).
    for (Case c : {Case{300, 3 * nr + 1, 500}, Case{20, 20 * nr + 1, 300}}) {
      std::vector<float> results[4];
      for (int t = 1; t <= 4; t++) {
        std::mt19937 same(99);
        auto a = random_vector(same, c.m * c.k);
        auto b = random_vector(same, c.k * c.n);
        auto bias = random_vector(same, c.m);
        Epilogue ep;
        ep.row_bias = bias.data();
        ep.max = 0.5f;
        auto& out = results[t - 1];
        out.assign(c.m * c.n, 0.0f);
        kernels::PackedMatrix pa(a.data(), c.m, c.k, c.k, 1, k->mr);
        kernels::StridedSource sb(b.data(), c.n, c.k, 1, c.n, k->nr);
        kernels::mmm(*k, c.m, c.n, c.k, pa, sb, ep, out.data(), c.n, t);
      }
      for (int t = 2; t <= 4; t++) EXPECT_EQ(results[0], results[t - 1]) << k->name << " " << t;
      check(*k, c, 4 | 16 | 32 | 256, 1, false, 3, rng);
    }
  }
}

TEST(KernelsMmm, IsaNames) {
  EXPECT_EQ(kernels::isa_name(Isa::Generic), "generic");
  EXPECT_EQ(kernels::isa_name(Isa::Avx2), "avx2");
  EXPECT_EQ(kernels::isa_name(Isa::Avx512), "avx512");
  EXPECT_TRUE(kernels::isa_supported(kernels::active_isa()));
}

}  // namespace
}  // namespace kiln
