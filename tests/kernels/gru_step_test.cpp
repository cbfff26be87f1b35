// The fused GRU step (kernels/recurrent/gru_step.h) on every ISA this machine runs, both forms
// (linear_before_reset 1: one pass; 0: reset_gates then candidate), against a double reference
// built from ONNX-order weights through the blocked layout (gru_gate_row, pack_gru_r): random
// hidden sizes (odd ones, ones below and above a block). Tolerance 2e-6 absolute on h: gate sums
// of up to 70 products of size <= 1/8 in float (~1e-6 of the sum's size), then sigmoid / tanh
// (vec_math: <= 6e-7 absolute). Any range split of the blocks gives the very same bits, padding
// units stay 0, and nothing past the padded vectors is written.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "kernels/recurrent/gru_step.h"
#include "tests/kernels/kernel_test_util.h"

namespace kiln::kernels {
namespace {

using kiln::test::random_vector;

double sigmoid(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}

struct Case {
  int64_t hidden, block, blocks, hp;
  std::vector<float> r, xw, rbh, h;  // ONNX order: R [3h, h], xw [3h], Rb_h [h]
  std::vector<float> r_blocked, xw_blocked, rbh_blocked, h_padded;
};

Case make_case(std::mt19937& rng, int64_t hidden, int64_t block) {
  Case c;
  c.hidden = hidden;
  c.block = block;
  c.blocks = lstm_blocks(hidden, block);
  c.hp = c.blocks * block;
  const float ws = 0.5f / std::sqrt(static_cast<float>(hidden));
  c.r = random_vector(rng, static_cast<size_t>(3 * hidden * hidden), -ws, ws);
  c.xw = random_vector(rng, static_cast<size_t>(3 * hidden), -2, 2);
  c.rbh = random_vector(rng, static_cast<size_t>(hidden), -1, 1);
  c.h = random_vector(rng, static_cast<size_t>(hidden));
  c.r_blocked.resize(static_cast<size_t>(c.blocks * hidden * 3 * block));
  pack_gru_r(c.r.data(), hidden, block, c.r_blocked.data());
  c.xw_blocked.assign(static_cast<size_t>(3 * c.hp), 0.0f);
  for (int64_t col = 0; col < 3 * c.hp; col++) {
    const int64_t row = gru_gate_row(col, hidden, block);
    if (row >= 0) c.xw_blocked[static_cast<size_t>(col)] = c.xw[static_cast<size_t>(row)];
  }
  c.rbh_blocked.assign(static_cast<size_t>(c.hp), 0.0f);
  c.h_padded.assign(static_cast<size_t>(c.hp), 0.0f);
  std::copy(c.rbh.begin(), c.rbh.end(), c.rbh_blocked.begin());
  std::copy(c.h.begin(), c.h.end(), c.h_padded.begin());
  return c;
}

// ONNX's GRU cell in double; for linear_before_reset = 0, xw already holds Rb_h.
std::vector<double> reference(const Case& c, bool after) {
  const int64_t H = c.hidden;
  auto dot = [&](int64_t row, const std::vector<double>& v) {
    double s = 0;
    for (int64_t j = 0; j < H; j++) s += double(c.r[row * H + j]) * v[j];
    return s;
  };
  std::vector<double> h(c.h.begin(), c.h.end()), rh(h.size()), z(h.size()), out(h.size());
  for (int64_t u = 0; u < H; u++) {
    z[u] = sigmoid(c.xw[u] + dot(u, h));
    rh[u] = sigmoid(c.xw[H + u] + dot(H + u, h));
  }
  for (int64_t u = 0; u < H; u++) {
    double n;
    if (after) {
      n = std::tanh(c.xw[2 * H + u] + rh[u] * (dot(2 * H + u, h) + c.rbh[u]));
    } else {
      std::vector<double> reset(h.size());
      for (int64_t j = 0; j < H; j++) reset[j] = rh[j] * h[j];
      n = std::tanh(c.xw[2 * H + u] + dot(2 * H + u, reset));
    }
    out[u] = (1 - z[u]) * n + z[u] * h[u];
  }
  return out;
}

constexpr float kGuard = 12345.0f;

// One step over blocks [first, last) of either form.
void run_step(const GruKernels& k, const Case& c, bool after, float* h_out, int64_t first,
              int64_t last) {
  if (after) {
    k.step_after(c.r_blocked.data(), c.xw_blocked.data(), c.rbh_blocked.data(), c.h_padded.data(),
                 c.hidden, h_out, first, last);
    return;
  }
  std::vector<float> z(static_cast<size_t>(c.hp + 16), kGuard), rh(z.size(), kGuard);
  // The first pass needs every block before any candidate.
  k.reset_gates(c.r_blocked.data(), c.xw_blocked.data(), c.h_padded.data(), c.hidden, z.data(),
                rh.data(), 0, c.blocks);
  for (size_t i = static_cast<size_t>(c.hp); i < z.size(); i++) {
    ASSERT_EQ(z[i], kGuard) << "wrote z past the padded units";
    ASSERT_EQ(rh[i], kGuard) << "wrote rh past the padded units";
  }
  k.candidate(c.r_blocked.data(), c.xw_blocked.data(), rh.data(), z.data(), c.h_padded.data(),
              c.hidden, h_out, first, last);
}

TEST(KernelsGruStep, MatchesReferenceAndSplitsBitwise) {
  for (Isa isa : supported_isas()) {
    const GruKernels& k = gru_kernels(isa);
    SCOPED_TRACE(isa_name(isa));
    std::mt19937 rng(78);
    for (int64_t hidden : {1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 40, 64, 70, 128}) {
      for (bool after : {true, false}) {
        SCOPED_TRACE(::testing::Message()
                     << "hidden " << hidden << " linear_before_reset " << after);
        const Case c = make_case(rng, hidden, k.block);
        std::vector<float> h_out(static_cast<size_t>(c.hp + 16), kGuard);
        run_step(k, c, after, h_out.data(), 0, c.blocks);
        const std::vector<double> want = reference(c, after);
        for (int64_t u = 0; u < hidden; u++) ASSERT_NEAR(h_out[u], want[u], 2e-6) << "h at " << u;
        for (int64_t u = hidden; u < c.hp; u++) ASSERT_EQ(h_out[u], 0.0f) << "padding unit " << u;
        for (size_t i = static_cast<size_t>(c.hp); i < h_out.size(); i++)
          ASSERT_EQ(h_out[i], kGuard) << "wrote h past the padded units";
        // The same step cut into random block ranges, run in a shuffled order.
        for (int trial = 0; trial < 3; trial++) {
          std::vector<int64_t> cuts = {0, c.blocks};
          for (int64_t b = 1; b < c.blocks; b++) {
            if (rng() % 3 == 0) cuts.push_back(b);
          }
          std::sort(cuts.begin(), cuts.end());
          std::vector<size_t> order(cuts.size() - 1);
          for (size_t i = 0; i < order.size(); i++) order[i] = i;
          std::shuffle(order.begin(), order.end(), rng);
          std::vector<float> h2(h_out.size(), kGuard);
          for (size_t i : order) run_step(k, c, after, h2.data(), cuts[i], cuts[i + 1]);
          for (int64_t u = 0; u < hidden; u++)
            ASSERT_EQ(h2[u], h_out[u]) << "h at " << u << ", trial " << trial;
        }
      }
    }
  }
}

TEST(KernelsGruStep, GateRowsAreABijection) {
  for (int64_t block : {4, 8, 16}) {
    for (int64_t hidden : {1, 5, 8, 13, 64}) {
      const int64_t gp = 3 * lstm_blocks(hidden, block) * block;
      std::vector<int> seen(static_cast<size_t>(3 * hidden), 0);
      int padding = 0;
      for (int64_t col = 0; col < gp; col++) {
        const int64_t row = gru_gate_row(col, hidden, block);
        if (row < 0) {
          padding++;
        } else {
          ASSERT_LT(row, 3 * hidden);
          seen[static_cast<size_t>(row)]++;
        }
      }
      for (int s : seen) EXPECT_EQ(s, 1);
      EXPECT_EQ(padding, gp - 3 * hidden);
    }
  }
}

}  // namespace
}  // namespace kiln::kernels
