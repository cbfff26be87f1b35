// NEON kernels: run-time detection, KILN_ISA, and the NEON micro-kernel against the portable one
// on every edge shape around its tile (mmm_test.cpp and conv_kernels_test.cpp also check every
// supported ISA, NEON included, against double-precision references on random shapes). On a
// non-ARM machine only the "not supported here" behaviour is checked.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>

#include "base/error.h"
#include "kernels/mmm/mmm.h"

#if defined(__arm__) || defined(__aarch64__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

namespace kiln {
namespace {

using kernels::Epilogue;
using kernels::Isa;
using kernels::MicroKernel;

// What the kernel reports about this CPU, independently of kiln's own detection.
bool cpu_has_neon() {
#if defined(__aarch64__)
  return (getauxval(AT_HWCAP) & HWCAP_ASIMD) != 0;
#elif defined(__arm__)
  return (getauxval(AT_HWCAP) & HWCAP_NEON) != 0;
#else
  return false;
#endif
}

TEST(KernelsNeon, DetectionFollowsTheCpu) {
  EXPECT_EQ(kernels::isa_name(Isa::Neon), "neon");
  EXPECT_EQ(kernels::isa_supported(Isa::Neon), cpu_has_neon());
  if (!cpu_has_neon()) {
    EXPECT_THROW(kernels::micro_kernel(Isa::Neon), Error);
    return;
  }
  const MicroKernel& k = kernels::micro_kernel(Isa::Neon);
  EXPECT_EQ(k.isa, Isa::Neon);
  EXPECT_NE(std::string(k.name).find("neon"), std::string::npos);
#if defined(__aarch64__)
  EXPECT_EQ(k.mr, 12);
  EXPECT_EQ(k.nr, 8);
#else
  EXPECT_EQ(k.mr, 8);
  EXPECT_EQ(k.nr, 4);
#endif
}

// Without KILN_ISA a NEON CPU uses the NEON kernels; KILN_ISA=generic|neon picks one (ctest runs
// the unit tests both ways in cross builds, see tests/cross_tests.cmake).
TEST(KernelsNeon, ActiveIsaHonoursKilnIsa) {
  const char* env = std::getenv("KILN_ISA");
  std::string want = env ? env : "";
  if (want == "generic") {
    EXPECT_EQ(kernels::active_isa(), Isa::Generic);
    EXPECT_EQ(kernels::default_micro_kernel().isa, Isa::Generic);
  } else if (want == "neon" || (want.empty() && cpu_has_neon())) {
    EXPECT_EQ(kernels::active_isa(), Isa::Neon);
    EXPECT_EQ(kernels::default_micro_kernel().isa, Isa::Neon);
  } else {
    GTEST_SKIP() << "not a NEON CPU and KILN_ISA does not ask for generic";
  }
}

std::vector<float> random_vector(std::mt19937& rng, int64_t n) {
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = d(rng);
  return v;
}

// C = epilogue(A * B) through `kernel`, A m x k and B k x n row-major, C with row stride n + 1
// starting from `init`.
std::vector<float> run(const MicroKernel& kernel, int64_t m, int64_t n, int64_t k,
                       const std::vector<float>& a, const std::vector<float>& b, const Epilogue& ep,
                       const std::vector<float>& init) {
  std::vector<float> c = init;
  kernels::StridedSource sa(a.data(), m, k, k, 1, kernel.mr);
  kernels::PackedMatrix pb(b.data(), n, k, 1, n, kernel.nr);
  kernels::mmm(kernel, m, n, k, sa, pb, ep, c.data(), n + 1, 1);
  return c;
}

// Every m and n from 1 to two tiles and one, several depths, with a full epilogue: the NEON tile
// (full tiles) and its edges (portable path) must agree with the portable kernel everywhere.
TEST(KernelsNeon, MatchesGenericOnEveryEdgeShape) {
  if (!kernels::isa_supported(Isa::Neon)) GTEST_SKIP() << "no NEON on this CPU";
  const MicroKernel& neon = kernels::micro_kernel(Isa::Neon);
  const MicroKernel& generic = kernels::micro_kernel(Isa::Generic);
  std::mt19937 rng(5);
  int bad = 0;
  for (int64_t k : {0, 1, 3, 17, 64}) {
    for (int64_t m = 1; m <= 2 * neon.mr + 1; m++) {
      for (int64_t n = 1; n <= 2 * neon.nr + 1; n++) {
        auto a = random_vector(rng, m * k);
        auto b = random_vector(rng, k * n);
        auto row_scale = random_vector(rng, m), col_bias = random_vector(rng, n);
        auto residual = random_vector(rng, m * n);
        auto init = random_vector(rng, m * (n + 1));
        Epilogue ep;
        ep.row_scale = row_scale.data();
        ep.col_bias = col_bias.data();
        ep.residual = residual.data();
        ep.residual_ld = n;
        ep.accumulate = (m + n) % 2 == 0;
        ep.leaky = (m + n) % 3 == 0;
        ep.leaky_alpha = 0.2f;
        if (n % 2) ep.min = -0.5f;
        if (m % 2) ep.max = 0.5f;
        auto want = run(generic, m, n, k, a, b, ep, init);
        auto got = run(neon, m, n, k, a, b, ep, init);
        for (size_t i = 0; i < got.size(); i++) {
          // k <= 64 products of magnitude <= 1, summed in another order (and fused on AArch64).
          if (!(std::fabs(got[i] - want[i]) <= 1e-5f * (1 + std::fabs(want[i]))) && bad++ < 5) {
            ADD_FAILURE() << "m=" << m << " n=" << n << " k=" << k << " at " << i << ": neon "
                          << got[i] << ", generic " << want[i];
          }
        }
      }
    }
  }
  EXPECT_EQ(bad, 0);
}

// Special values through the NEON epilogue: NaN stays NaN through a clamp (as in the portable
// kernel) and infinities are clamped.
TEST(KernelsNeon, SpecialValuesLikeGeneric) {
  if (!kernels::isa_supported(Isa::Neon)) GTEST_SKIP() << "no NEON on this CPU";
  const MicroKernel& neon = kernels::micro_kernel(Isa::Neon);
  const MicroKernel& generic = kernels::micro_kernel(Isa::Generic);
  const int64_t m = neon.mr, n = neon.nr, k = 2;
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> a(m * k, 1.0f), b(k * n, 0.5f);
  a[0] = std::nanf("");  // row 0: NaN everywhere
  a[2] = inf;            // row 1: +inf
  a[4] = -inf;           // row 2: -inf
  std::vector<float> init(m * (n + 1), 0.0f);
  Epilogue ep;
  ep.min = 0;
  ep.max = 6;
  auto want = run(generic, m, n, k, a, b, ep, init);
  auto got = run(neon, m, n, k, a, b, ep, init);
  for (int64_t j = 0; j < n; j++) {
    EXPECT_TRUE(std::isnan(got[j])) << j;
    EXPECT_TRUE(std::isnan(want[j])) << j;
    EXPECT_EQ(got[(n + 1) + j], 6.0f) << j;
    EXPECT_EQ(got[2 * (n + 1) + j], 0.0f) << j;
    EXPECT_EQ(got[3 * (n + 1) + j], 1.0f) << j;  // 1 * 0.5 + 1 * 0.5
  }
  for (size_t i = static_cast<size_t>(n + 1); i < got.size(); i++) EXPECT_EQ(got[i], want[i]) << i;
}

}  // namespace
}  // namespace kiln
