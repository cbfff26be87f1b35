// kernels/norm (softmax, log-softmax, layer norm, GELU) against the reference ops, for every
// ISA this machine has, on random rows of odd and edge lengths (1, lane counts +- 1, large).
// Tolerances are the error bounds stated in kernels/norm/norm.h, evaluated per element with the
// lane count of the narrowest ISA (4, the most terms per accumulator):
//   softmax      rel  4e-7 + 2^-24 * (|x - max| + ceil(n / 4) + 2)   (exp, the row sum, scaling)
//   log_softmax  abs  4e-7 + 2^-24 * (2 |x - max| + 2 |log sum| + ceil(n / 4) + 2)
// Rows are offset by 0, 1e3 and 1e4: log-softmax must subtract the max before adding log(sum)
// (ONNX's logsoftmax_large_number), or the error grows to max's ulp (1e-3 at 1e4).
//   layer_norm   abs  4 (ceil(n / 4) + 4) 2^-24 (|gamma| (|x_hat| + inv_std max|x|) + |beta|)
//   gelu         abs  0.5 |x| 6e-7 + 4 * 2^-24 |y| (erf error, roundings); tanh form likewise
// A wrong max, sum, mean, variance or lane tail is off by far more (>= 1e-3 relative).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "kernels/norm/norm.h"
#include "ops/nn/layer_norm.h"
#include "ops/nn/softmax.h"
#include "tests/ops/nn/nn_test_util.h"

namespace kiln {
namespace {

constexpr double kEps = 1.0 / (1 << 24);

std::vector<float> random_values(std::mt19937& rng, int64_t n, float lo, float hi) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = d(rng);
  return v;
}

const std::vector<int64_t> kLengths = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64, 127, 333};

TEST(KernelsNorm, SoftmaxAndLogSoftmaxWithinStatedError) {
  std::mt19937 rng(11);
  for (kernels::Isa isa : kernels::supported_isas()) {
    SCOPED_TRACE(kernels::isa_name(isa));
    const auto& k = kernels::norm_kernels(isa);
    for (int64_t n : kLengths) {
      const int64_t rows = 3;
      std::vector<float> x = random_values(rng, rows * n, -8, 8);
      const float offsets[rows] = {0.0f, 1e3f, 1e4f};
      for (int64_t i = 0; i < rows * n; i++) x[static_cast<size_t>(i)] += offsets[i / n];
      std::vector<double> xd(x.begin(), x.end()), ref(x.size()), ref_log(x.size());
      ops::softmax_rows(xd.data(), ref.data(), rows, n, 1, false);
      ops::softmax_rows(xd.data(), ref_log.data(), rows, n, 1, true);
      std::vector<float> y(x.size()), yl(x.size());
      k.softmax(x.data(), y.data(), rows, n, false);
      k.softmax(x.data(), yl.data(), rows, n, true);
      const double sum_terms = std::ceil(n / 4.0) + 2;
      for (int64_t r = 0; r < rows; r++) {
        double m = -INFINITY, s = 0;
        for (int64_t j = 0; j < n; j++) m = std::max(m, xd[r * n + j]);
        for (int64_t j = 0; j < n; j++) s += std::exp(xd[r * n + j] - m);
        for (int64_t j = 0; j < n; j++) {
          const size_t i = static_cast<size_t>(r * n + j);
          const double tol = 4e-7 + kEps * (std::fabs(xd[i] - m) + sum_terms);
          ASSERT_LE(std::fabs(y[i] - ref[i]), tol * ref[i]) << "n " << n << " at " << i;
          const double tol_log =
              4e-7 + kEps * (2 * std::fabs(xd[i] - m) + 2 * std::fabs(std::log(s)) + sum_terms);
          ASSERT_LE(std::fabs(yl[i] - ref_log[i]), tol_log) << "n " << n << " at " << i;
        }
      }
      // In place (y aliases x).
      std::vector<float> inplace = x;
      k.softmax(inplace.data(), inplace.data(), rows, n, false);
      for (size_t i = 0; i < x.size(); i++) ASSERT_EQ(inplace[i], y[i]);
    }
  }
}

// softmax_axis: the columns of [len, inner] blocks (inner sizes around the lane counts), in
// column ranges that start and end off the vector boundaries, against the reference in double;
// bounds as softmax's with n = len terms per lane (each lane sums one column), log(sum) from
// vec_math's log (within 2 ulp: a further 4 |log sum| 2^-24).
TEST(KernelsNorm, SoftmaxOverAnInnerAxisWithinStatedError) {
  std::mt19937 rng(12);
  for (kernels::Isa isa : kernels::supported_isas()) {
    SCOPED_TRACE(kernels::isa_name(isa));
    const auto& k = kernels::norm_kernels(isa);
    for (int64_t len : {1, 2, 3, 16, 33}) {
      for (int64_t inner : {1, 3, 7, 8, 9, 17, 64, 65, 130}) {
        std::vector<float> x = random_values(rng, len * inner, -8, 8);
        if (len > 2) x[static_cast<size_t>(inner)] += 1e3f;  // column 0: a dominant entry
        std::vector<double> xd(x.begin(), x.end()), ref(x.size()), ref_log(x.size());
        ops::softmax_rows(xd.data(), ref.data(), 1, len, inner, false);
        ops::softmax_rows(xd.data(), ref_log.data(), 1, len, inner, true);
        std::vector<float> y(x.size(), -7.0f), yl(x.size(), -7.0f);
        // Three column ranges covering [0, inner): the kernel must touch only its own.
        const int64_t c1 = inner / 3, c2 = inner - inner / 4;
        for (auto [j0, j1] : {std::pair{int64_t{0}, c1}, std::pair{c1, c2}, std::pair{c2, inner}}) {
          if (j0 == j1) continue;
          k.softmax_axis(x.data(), y.data(), len, inner, j0, j1, false);
          k.softmax_axis(x.data(), yl.data(), len, inner, j0, j1, true);
        }
        for (int64_t j = 0; j < inner; j++) {
          double m = -INFINITY, s = 0;
          for (int64_t a = 0; a < len; a++) m = std::max(m, xd[a * inner + j]);
          for (int64_t a = 0; a < len; a++) s += std::exp(xd[a * inner + j] - m);
          for (int64_t a = 0; a < len; a++) {
            const size_t i = static_cast<size_t>(a * inner + j);
            const double tol = 4e-7 + kEps * (std::fabs(xd[i] - m) + len + 2);
            ASSERT_LE(std::fabs(y[i] - ref[i]), tol * ref[i])
                << "len " << len << " inner " << inner << " at " << i;
            const double tol_log =
                4e-7 + kEps * (2 * std::fabs(xd[i] - m) + 6 * std::fabs(std::log(s)) + len + 2);
            ASSERT_LE(std::fabs(yl[i] - ref_log[i]), tol_log)
                << "len " << len << " inner " << inner << " at " << i;
          }
        }
        std::vector<float> inplace = x;
        k.softmax_axis(inplace.data(), inplace.data(), len, inner, 0, inner, false);
        for (size_t i = 0; i < x.size(); i++) ASSERT_EQ(inplace[i], y[i]);
      }
    }
  }
}

TEST(KernelsNorm, SoftmaxOfLargeAndEqualValues) {
  for (kernels::Isa isa : kernels::supported_isas()) {
    SCOPED_TRACE(kernels::isa_name(isa));
    const auto& k = kernels::norm_kernels(isa);
    // Shifted by the max: no overflow at 1000; equal values give 1/n.
    std::vector<float> x = {1000, 1000, 999, 1000, 1000};
    std::vector<float> y(x.size());
    k.softmax(x.data(), y.data(), 1, 5, false);
    const double e = std::exp(-1.0), s = 4 + e;
    EXPECT_NEAR(y[0], 1 / s, 1e-6);
    EXPECT_NEAR(y[2], e / s, 1e-6);
    std::vector<float> z(19, -3.5f), yz(19);
    k.softmax(z.data(), yz.data(), 1, 19, false);
    for (float v : yz) EXPECT_NEAR(v, 1.0 / 19, 1e-7);
  }
}

TEST(KernelsNorm, LayerNormWithinStatedErrorOfReferenceOp) {
  std::mt19937 rng(12);
  for (kernels::Isa isa : kernels::supported_isas()) {
    SCOPED_TRACE(kernels::isa_name(isa));
    const auto& k = kernels::norm_kernels(isa);
    for (int64_t n : kLengths) {
      const int64_t rows = 4;
      // An offset mean (3) checks the two-pass variance.
      std::vector<float> x = random_values(rng, rows * n, 1, 5);
      std::vector<float> gamma = random_values(rng, n, -2, 2), beta = random_values(rng, n, -1, 1);
      for (bool with_beta : {true, false}) {
        ops::LayerNorm ref(-1, 1e-5f, DatumType::F32);
        std::vector<Tensor> in = {Tensor::from_vector<float>({rows, n}, x),
                                  Tensor::from_vector<float>({n}, gamma)};
        if (with_beta) in.push_back(Tensor::from_vector<float>({n}, beta));
        auto want = testing::run_op(ref, in, 3);
        std::vector<float> y(x.size()), mean(rows), inv(rows);
        k.layer_norm(x.data(), gamma.data(), with_beta ? beta.data() : nullptr, 1e-5f, y.data(),
                     mean.data(), inv.data(), rows, n);
        const double terms = 4 * (std::ceil(n / 4.0) + 4) * kEps;
        for (int64_t r = 0; r < rows; r++) {
          const double inv_ref = want[2].data<float>()[r];
          EXPECT_NEAR(mean[r], want[1].data<float>()[r], terms * 5);
          EXPECT_NEAR(inv[r], inv_ref, terms * inv_ref);
          for (int64_t j = 0; j < n; j++) {
            const size_t i = static_cast<size_t>(r * n + j);
            const double x_hat = (x[i] - want[1].data<float>()[r]) * inv_ref;
            const double tol = terms * (std::fabs(gamma[j]) * (std::fabs(x_hat) + inv_ref * 5) +
                                        (with_beta ? std::fabs(beta[j]) : 0.0)) +
                               1e-7;
            ASSERT_NEAR(y[i], want[0].data<float>()[i], tol) << "n " << n << " at " << i;
          }
        }
      }
    }
  }
}

TEST(KernelsNorm, GeluWithinStatedError) {
  std::mt19937 rng(13);
  for (kernels::Isa isa : kernels::supported_isas()) {
    SCOPED_TRACE(kernels::isa_name(isa));
    const auto& k = kernels::norm_kernels(isa);
    for (int64_t n : kLengths) {
      std::vector<float> x = random_values(rng, n, -7, 7);
      x[0] = 0;
      std::vector<float> y(x.size()), yt(x.size());
      k.gelu(x.data(), y.data(), n, false);
      k.gelu(x.data(), yt.data(), n, true);
      for (size_t i = 0; i < x.size(); i++) {
        const double v = x[i];
        const double want = 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
        const double inner = std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v);
        const double want_t = 0.5 * v * (1 + std::tanh(inner));
        ASSERT_NEAR(y[i], want, 0.5 * std::fabs(v) * 6e-7 + 4 * kEps * std::fabs(want) + 1e-30)
            << "x " << v;
        ASSERT_NEAR(yt[i], want_t,
                    0.5 * std::fabs(v) * (6e-7 + 4 * kEps * std::fabs(inner)) +
                        4 * kEps * std::fabs(want_t) + 1e-30)
            << "x " << v;
      }
    }
    std::vector<float> special = {-INFINITY, INFINITY, NAN}, ys(3);
    k.gelu(special.data(), ys.data(), 3, false);
    EXPECT_EQ(ys[1], INFINITY);
    EXPECT_TRUE(std::isnan(ys[2]));
  }
}

}  // namespace
}  // namespace kiln
