// The fused LSTM step (kernels/recurrent/lstm_step.h) on every ISA this machine runs, against a
// double reference built from ONNX-order weights through the blocked layout (lstm_gate_row,
// pack_lstm_r): random hidden sizes (odd ones, ones below and above a block), with and without
// peepholes. Tolerance 2e-6 absolute on h and c: gate sums of up to 70 products of size <= 1/8
// (float rounding ~ 70 * 2^-24 * 8 ~ 3e-5 relative to the terms, ~1e-6 of the sum's size),
// then sigmoid / tanh (vec_math: <= 6e-7 absolute). Any range split of the blocks gives the very
// same bits, and nothing outside the padded vectors is written.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "kernels/recurrent/lstm_step.h"
#include "tests/kernels/kernel_test_util.h"

namespace kiln::kernels {
namespace {

using kiln::test::random_vector;

double sigmoid(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}

TEST(KernelsLstmStep, MatchesReferenceAndSplitsBitwise) {
  for (Isa isa : supported_isas()) {
    const LstmKernels& k = lstm_kernels(isa);
    const int64_t block = k.block;
    SCOPED_TRACE(isa_name(isa));
    std::mt19937 rng(77);
    for (int64_t hidden : {1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 40, 64, 70}) {
      for (bool peep : {false, true}) {
        SCOPED_TRACE(::testing::Message() << "hidden " << hidden << " peepholes " << peep);
        const int64_t blocks = lstm_blocks(hidden, block), hp = blocks * block, gp = 4 * hp;
        const float ws = 0.5f / std::sqrt(static_cast<float>(hidden));
        // ONNX order: R [4h, h], pre-activations xw [4h], peepholes [3h].
        std::vector<float> r =
            random_vector(rng, static_cast<size_t>(4 * hidden * hidden), -ws, ws);
        std::vector<float> xw = random_vector(rng, static_cast<size_t>(4 * hidden), -2, 2);
        std::vector<float> p = random_vector(rng, static_cast<size_t>(3 * hidden));
        std::vector<float> h = random_vector(rng, static_cast<size_t>(hidden));
        std::vector<float> c0 = random_vector(rng, static_cast<size_t>(hidden), -3, 3);
        // Blocked operands.
        std::vector<float> rb(static_cast<size_t>(blocks * hidden * 4 * block));
        pack_lstm_r(r.data(), hidden, block, rb.data());
        std::vector<float> xwb(static_cast<size_t>(gp), 0.0f),
            pb(static_cast<size_t>(3 * hp), 0.0f);
        for (int64_t col = 0; col < gp; col++) {
          const int64_t row = lstm_gate_row(col, hidden, block);
          if (row >= 0) xwb[col] = xw[row];
        }
        for (int64_t u = 0; u < hidden; u++) {
          for (int64_t q = 0; q < 3; q++)
            pb[(u / block * 3 + q) * block + u % block] = p[q * hidden + u];
        }
        // The padded c and h_out, with guard values past their end.
        constexpr float kGuard = 12345.0f;
        std::vector<float> c(static_cast<size_t>(hp + 16), kGuard), h_out(c.size(), kGuard);
        std::copy(c0.begin(), c0.end(), c.begin());
        std::fill(c.begin() + hidden, c.begin() + hp, 0.0f);
        const std::vector<float> c_start = c;
        k.step(rb.data(), xwb.data(), peep ? pb.data() : nullptr, h.data(), hidden, c.data(),
               h_out.data(), 0, blocks);
        for (int64_t u = 0; u < hidden; u++) {
          double g[4];
          for (int q = 0; q < 4; q++) {
            double s = xw[q * hidden + u];
            for (int64_t j = 0; j < hidden; j++)
              s += double(r[(q * hidden + u) * hidden + j]) * h[j];
            g[q] = s;
          }
          const double cp = c0[u];
          const double pi = peep ? p[u] : 0, po = peep ? p[hidden + u] : 0,
                       pf = peep ? p[2 * hidden + u] : 0;
          const double i = sigmoid(g[0] + pi * cp), f = sigmoid(g[2] + pf * cp);
          const double cn = f * cp + i * std::tanh(g[3]);
          const double hn = sigmoid(g[1] + po * cn) * std::tanh(cn);
          ASSERT_NEAR(c[u], cn, 2e-6) << "c at " << u;
          ASSERT_NEAR(h_out[u], hn, 2e-6) << "h at " << u;
        }
        for (size_t i = static_cast<size_t>(hp); i < c.size(); i++) {
          ASSERT_EQ(c[i], kGuard) << "wrote c past the padded units";
          ASSERT_EQ(h_out[i], kGuard) << "wrote h past the padded units";
        }
        // The same step cut into random block ranges, run in a shuffled order.
        for (int trial = 0; trial < 4; trial++) {
          std::vector<int64_t> cuts = {0, blocks};
          for (int64_t b = 1; b < blocks; b++) {
            if (rng() % 3 == 0) cuts.push_back(b);
          }
          std::sort(cuts.begin(), cuts.end());
          std::vector<size_t> order(cuts.size() - 1);
          for (size_t i = 0; i < order.size(); i++) order[i] = i;
          std::shuffle(order.begin(), order.end(), rng);
          std::vector<float> c2 = c_start, h2(h_out.size(), kGuard);
          for (size_t i : order) {
            k.step(rb.data(), xwb.data(), peep ? pb.data() : nullptr, h.data(), hidden, c2.data(),
                   h2.data(), cuts[i], cuts[i + 1]);
          }
          for (int64_t u = 0; u < hidden; u++) {
            ASSERT_EQ(c2[u], c[u]) << "c at " << u << ", trial " << trial;
            ASSERT_EQ(h2[u], h_out[u]) << "h at " << u << ", trial " << trial;
          }
        }
      }
    }
  }
}

TEST(KernelsLstmStep, GateRowsAreABijection) {
  for (int64_t block : {4, 8, 16}) {
    for (int64_t hidden : {1, 5, 8, 13, 64}) {
      const int64_t gp = 4 * lstm_blocks(hidden, block) * block;
      std::vector<int> seen(static_cast<size_t>(4 * hidden), 0);
      int padding = 0;
      for (int64_t col = 0; col < gp; col++) {
        const int64_t row = lstm_gate_row(col, hidden, block);
        if (row < 0) {
          padding++;
        } else {
          ASSERT_LT(row, 4 * hidden);
          seen[static_cast<size_t>(row)]++;
          // Gate q of unit u sits in block u / block, gate slot q.
          EXPECT_EQ(col / block % 4, row / hidden);
          EXPECT_EQ(col / (4 * block) * block + col % block, row % hidden);
        }
      }
      for (int s : seen) EXPECT_EQ(s, 1);
      EXPECT_EQ(padding, static_cast<int>(gp - 4 * hidden));
    }
  }
}

}  // namespace
}  // namespace kiln::kernels
