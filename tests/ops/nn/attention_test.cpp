// Attention (23-25) and RotaryEmbedding (23) against references written here from the spec's
// formulas (plain loops in double), on shapes and options ONNX Runtime's suite cannot reach:
// sliding windows, fully masked rows, nonpad_kv_seqlen with causal offsets.
#include "ops/nn/attention.h"

#include <cmath>
#include <limits>
#include <random>

#include "ops/nn/rotary_embedding.h"
#include "tests/ops/nn/nn_test_util.h"

namespace kiln {
namespace {

using testing::run_op;

Tensor random_tensor(Shape shape, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1, 1);
  Tensor t(DatumType::F32, shape);
  for (auto& v : t.values_mut<float>()) v = u(rng);
  return t;
}

// Reference attention on 4-D inputs: allowed(b, h, i, j) and the additive bias decide.
template <typename Allowed, typename Bias>
std::vector<double> reference(const Tensor& q, const Tensor& k, const Tensor& v, double scale,
                              Allowed allowed, Bias bias) {
  const int64_t b = q.dim(0), qh = q.dim(1), sq = q.dim(2), d = q.dim(3);
  const int64_t kh = k.dim(1), skv = k.dim(2), dv = v.dim(3);
  std::vector<double> y(static_cast<size_t>(b * qh * sq * dv), 0.0);
  for (int64_t n = 0; n < b; n++)
    for (int64_t h = 0; h < qh; h++)
      for (int64_t i = 0; i < sq; i++) {
        const int64_t g = h / (qh / kh);
        std::vector<double> s(static_cast<size_t>(skv));
        double top = -INFINITY;
        for (int64_t j = 0; j < skv; j++) {
          double dot = 0;
          for (int64_t e = 0; e < d; e++)
            dot += q.values<float>()[((n * qh + h) * sq + i) * d + e] *
                   k.values<float>()[((n * kh + g) * skv + j) * d + e];
          s[j] = allowed(n, h, i, j) ? dot * scale + bias(n, h, i, j) : -INFINITY;
          top = std::max(top, s[j]);
        }
        if (top == -INFINITY) continue;  // every key masked: zeros
        double sum = 0;
        for (auto& x : s) sum += (x = std::exp(x - top));
        for (int64_t j = 0; j < skv; j++)
          for (int64_t e = 0; e < dv; e++)
            y[((n * qh + h) * sq + i) * dv + e] +=
                s[j] / sum * v.values<float>()[((n * kh + g) * skv + j) * dv + e];
      }
  return y;
}

void expect_matches(const Tensor& got, const std::vector<double>& want, double tol = 2e-6) {
  ASSERT_EQ(got.numel(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); i++)
    EXPECT_NEAR(got.values<float>()[i], want[i], tol) << "at " << i;
}

TEST(Attention, GroupedHeadsCausalAndFloatMask) {
  std::mt19937 rng(1);
  Tensor q = random_tensor({2, 4, 3, 5}, rng), k = random_tensor({2, 2, 3, 5}, rng),
         v = random_tensor({2, 2, 3, 2}, rng), mask = random_tensor({3, 3}, rng);
  ops::AttentionOptions o;
  o.is_causal = true;
  auto y = run_op(ops::Attention(o), {q, k, v, mask}, 4);
  auto want = reference(
      q, k, v, 1 / std::sqrt(5.0), [](int64_t, int64_t, int64_t i, int64_t j) { return j <= i; },
      [&](int64_t, int64_t, int64_t i, int64_t j) { return mask.values<float>()[i * 3 + j]; });
  expect_matches(y[0], want);
  // present_key / present_value without a past are K and V.
  EXPECT_TRUE(y[1].equals(k));
  EXPECT_TRUE(y[2].equals(v));
}

TEST(Attention, SlidingWindowsAndFullyMaskedRows) {
  std::mt19937 rng(2);
  Tensor q = random_tensor({1, 1, 4, 3}, rng), k = random_tensor({1, 1, 6, 3}, rng),
         v = random_tensor({1, 1, 6, 3}, rng);
  for (auto window : {std::pair<int64_t, int64_t>{2, 1}, {0, 0}, {-1, 2}, {1, -1}}) {
    // Plain locals: clang 14 cannot capture structured bindings in a lambda.
    const int64_t l = window.first, r = window.second;
    ops::AttentionOptions o;
    o.left_window = l;
    o.right_window = r;
    auto y = run_op(ops::Attention(o), {q, k, v}, 4);
    auto want = reference(
        q, k, v, 1 / std::sqrt(3.0),
        [&](int64_t, int64_t, int64_t i, int64_t j) {
          return (l < 0 || j >= i - l) && (r < 0 || j <= i + r);
        },
        [](int64_t, int64_t, int64_t, int64_t) { return 0.0; });
    expect_matches(y[0], want);
  }
  // A boolean mask row of all false gives a zero row, and the qk output (mode 3) zeros too.
  Tensor mask(DatumType::Bool, {4, 6});
  for (int64_t j = 0; j < 24; j++) mask.data<bool>()[j] = j / 6 != 2;
  ops::AttentionOptions o;
  o.qk_output_mode = 3;
  auto y = run_op(ops::Attention(o), {q, k, v, mask}, 4);
  for (int64_t e = 0; e < 3; e++) EXPECT_EQ(y[0].values<float>()[2 * 3 + e], 0.0f);
  double row_sum = 0;
  for (int64_t j = 0; j < 6; j++) {
    EXPECT_EQ(y[3].values<float>()[2 * 6 + j], 0.0f);
    row_sum += y[3].values<float>()[1 * 6 + j];
  }
  EXPECT_NEAR(row_sum, 1.0, 1e-6);  // a live row's probabilities sum to 1
}

TEST(Attention, PastKeysEqualOneLongerSequence) {
  std::mt19937 rng(3);
  Tensor q = random_tensor({1, 2, 2, 4}, rng), k = random_tensor({1, 2, 5, 4}, rng),
         v = random_tensor({1, 2, 5, 4}, rng);
  // Split K, V into 3 past positions and 2 new ones.
  auto split = [](const Tensor& t, int64_t from, int64_t to) {
    Tensor out(DatumType::F32, {1, 2, to - from, 4});
    for (int64_t h = 0; h < 2; h++)
      for (int64_t s = from; s < to; s++)
        for (int64_t e = 0; e < 4; e++)
          out.data<float>()[(h * (to - from) + s - from) * 4 + e] =
              t.values<float>()[(h * 5 + s) * 4 + e];
    return out;
  };
  ops::AttentionOptions o;
  o.is_causal = true;
  auto with_past =
      run_op(ops::Attention(o),
             {q, split(k, 3, 5), split(v, 3, 5), Tensor(), split(k, 0, 3), split(v, 0, 3)}, 4,
             {false, false, false, true});
  // Causal with a past of 3: query i sees keys j <= i + 3.
  auto want = reference(
      q, k, v, 0.5, [](int64_t, int64_t, int64_t i, int64_t j) { return j <= i + 3; },
      [](int64_t, int64_t, int64_t, int64_t) { return 0.0; });
  expect_matches(with_past[0], want);
  EXPECT_TRUE(with_past[1].equals(k));  // present = past + new
  EXPECT_TRUE(with_past[2].equals(v));
}

TEST(Attention, NonpadLengthsMaskPaddingAndShiftCausality) {
  std::mt19937 rng(4);
  Tensor q = random_tensor({2, 1, 2, 3}, rng), k = random_tensor({2, 1, 6, 3}, rng),
         v = random_tensor({2, 1, 6, 3}, rng);
  Tensor nonpad = Tensor::from_vector<int64_t>({2}, {4, 6});
  ops::AttentionOptions o;
  o.is_causal = true;
  auto y = run_op(ops::Attention(o), {q, k, v, Tensor(), Tensor(), Tensor(), nonpad}, 4,
                  {false, false, false, true, true, true});
  auto want = reference(
      q, k, v, 1 / std::sqrt(3.0),
      [&](int64_t b, int64_t, int64_t i, int64_t j) {
        int64_t valid = b == 0 ? 4 : 6;
        return j < valid && j <= i + valid - 2;
      },
      [](int64_t, int64_t, int64_t, int64_t) { return 0.0; });
  expect_matches(y[0], want);
}

TEST(Attention, ThreeDInputsAndSoftcap) {
  std::mt19937 rng(5);
  Tensor q4 = random_tensor({1, 2, 3, 2}, rng), k4 = random_tensor({1, 2, 3, 2}, rng),
         v4 = random_tensor({1, 2, 3, 2}, rng);
  auto to3 = [](const Tensor& t) {  // [1, H, S, D] -> [1, S, H * D]
    Tensor out(DatumType::F32, {1, 3, 4});
    for (int64_t h = 0; h < 2; h++)
      for (int64_t s = 0; s < 3; s++)
        for (int64_t e = 0; e < 2; e++)
          out.data<float>()[(s * 2 + h) * 2 + e] = t.values<float>()[(h * 3 + s) * 2 + e];
    return out;
  };
  ops::AttentionOptions o4;
  o4.softcap = 0.3f;
  o4.scale = 2.0f;
  auto y4 = run_op(ops::Attention(o4), {q4, k4, v4}, 4);
  ops::AttentionOptions o3 = o4;
  o3.q_num_heads = o3.kv_num_heads = 2;
  auto y3 = run_op(ops::Attention(o3), {to3(q4), to3(k4), to3(v4)}, 4);
  EXPECT_TRUE(y3[0].equals(to3(y4[0])));
  // Softcap bounds every score: with a cap of 0.3 the weights stay within exp(+-0.6) of uniform.
  ops::AttentionOptions oq = o4;
  oq.qk_output_mode = 1;
  auto capped = run_op(ops::Attention(oq), {q4, k4, v4}, 4)[3];
  for (float s : capped.values<float>()) EXPECT_LE(std::abs(s), 0.3f);
}

TEST(RotaryEmbedding, RotatesHalvesOrNeighboursByTheCachedAngles) {
  // One head of 4, rotary dim 4: pairs (0, 2), (1, 3) (halves) or (0, 1), (2, 3) (interleaved).
  Tensor x = Tensor::from_vector<float>({1, 1, 1, 4}, {1, 2, 3, 4});
  const float c = std::cos(0.5f), s = std::sin(0.5f);
  Tensor cos = Tensor::from_vector<float>({3, 2}, {1, 1, 1, 1, c, 0});
  Tensor sin = Tensor::from_vector<float>({3, 2}, {0, 0, 0, 0, s, 1});
  Tensor pos = Tensor::from_vector<int64_t>({1, 1}, {2});
  auto halves = run_op(ops::RotaryEmbedding(false, 0, 0), {x, cos, sin, pos})[0];
  testing::expect_close(halves, {c * 1 - s * 3, 0 * 2 - 1 * 4, s * 1 + c * 3, 1 * 2 + 0 * 4});
  auto inter = run_op(ops::RotaryEmbedding(true, 0, 0), {x, cos, sin, pos})[0];
  testing::expect_close(inter, {c * 1 - s * 2, s * 1 + c * 2, 0 * 3 - 1 * 4, 1 * 3 + 0 * 4});
  // Partial rotation leaves the tail alone.
  Tensor cos1 = Tensor::from_vector<float>({1, 1}, {0});
  Tensor sin1 = Tensor::from_vector<float>({1, 1}, {1});
  auto part = run_op(ops::RotaryEmbedding(false, 2, 0),
                     {x, cos1, sin1, Tensor::from_vector<int64_t>({1, 1}, {0})})[0];
  testing::expect_close(part, {-2, 1, 3, 4});
  // A position past the caches is an error, not a read out of bounds.
  EXPECT_THROW(run_op(ops::RotaryEmbedding(false, 0, 0),
                      {x, cos, sin, Tensor::from_vector<int64_t>({1, 1}, {3})}),
               Error);
}

}  // namespace
}  // namespace kiln
