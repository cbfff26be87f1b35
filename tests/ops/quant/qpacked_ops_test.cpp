// QConvPacked and QMatMulPacked (the int8-kernel ops) against the reference QLinearConv /
// QLinearMatMul on random data: strides, padding, dilation, groups (depthwise too), 1-D and 2-D,
// u8 and s8 activations, per-channel weight scales. The reference requantizes in double, the
// kernels in float: outputs within one step, exact on >= 98% (a sum near a rounding tie may
// round the other way; a wrong zero point, bias, channel or tap moves far more elements).
#include <gtest/gtest.h>

#include <cstring>

#include <random>

#include "ops/quant/qconv_packed.h"
#include "ops/quant/qlinear_conv.h"
#include "ops/quant/qlinear_matmul.h"
#include "ops/quant/qmatmul_packed.h"
#include "tests/ops/image/image_test_util.h"

using namespace kiln;
using kiln::image_test::run;

namespace {

template <class T>
Tensor random_tensor(std::mt19937& rng, const Shape& shape) {
  std::uniform_int_distribution<int> d(std::numeric_limits<T>::lowest(),
                                       std::numeric_limits<T>::max());
  std::vector<T> v(static_cast<size_t>(shape_numel(shape)));
  for (auto& x : v) x = static_cast<T>(d(rng));
  return Tensor::from_vector<T>(shape, v);
}

void expect_close_q(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.shape(), want.shape());
  ASSERT_EQ(got.dtype(), want.dtype());
  Tensor g = got.cast_to(DatumType::I32), w = want.cast_to(DatumType::I32);
  auto gv = g.values<int32_t>(), wv = w.values<int32_t>();
  size_t off = 0;
  for (size_t i = 0; i < gv.size(); i++) {
    ASSERT_LE(std::abs(gv[i] - wv[i]), 1) << "at " << i;
    off += gv[i] != wv[i];
  }
  EXPECT_LE(off, std::max<size_t>(1, gv.size() / 50));
}

struct ConvCase {
  Shape x, w;
  std::vector<int64_t> strides, pads, dilations;
  int64_t group;
  bool x_signed;
};

TEST(QConvPacked, MatchesQLinearConv) {
  std::mt19937 rng(3);
  const ConvCase cases[] = {
      {{1, 8, 9, 11}, {16, 8, 1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1, false},
      {{2, 3, 13, 12}, {10, 3, 3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, 1, false},
      {{1, 12, 10, 10}, {12, 1, 3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 12, false},
      {{1, 12, 11, 9}, {12, 1, 3, 3}, {2, 2}, {0, 0, 1, 1}, {1, 1}, 12, true},
      {{1, 6, 8, 8}, {9, 2, 3, 3}, {1, 1}, {2, 2, 2, 2}, {2, 2}, 3, true},
      {{1, 20, 30}, {24, 20, 5}, {1}, {2, 2}, {1}, 1, false},
      {{1, 16, 40}, {8, 16, 3}, {2}, {0, 1}, {3}, 1, true},
      {{1, 4, 17, 19}, {6, 4, 3, 3}, {3, 3}, {2, 1, 0, 2}, {2, 1}, 1, false},
      {{1, 3, 15, 33}, {8, 3, 3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, 1, false},
  };
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(testing::Message() << "x " << c.x.size() << "-D group " << c.group);
    const int64_t m = c.w[0];
    Tensor x = c.x_signed ? random_tensor<int8_t>(rng, c.x) : random_tensor<uint8_t>(rng, c.x);
    Tensor w = random_tensor<int8_t>(rng, c.w);
    std::uniform_real_distribution<float> sd(0.5f, 2.0f);
    std::vector<float> ws(static_cast<size_t>(m));
    for (auto& v : ws) v = sd(rng) * 0.002f;
    std::vector<int32_t> bias(static_cast<size_t>(m));
    std::uniform_int_distribution<int32_t> bd(-3000, 3000);
    for (auto& v : bias) v = bd(rng);
    const float xs = 0.05f, ys = 0.09f / std::sqrt(static_cast<float>(shape_numel(c.w) / m));
    const int32_t xz = c.x_signed ? -3 : 120, yz = 128;
    ops::quant::ConvGeometry g;
    g.strides = c.strides;
    g.pads = c.pads;
    g.dilations = c.dilations;
    g.group = c.group;
    ops::QLinearConv ref(g);
    Tensor xzt = c.x_signed ? Tensor::scalar<int8_t>(static_cast<int8_t>(xz))
                            : Tensor::scalar<uint8_t>(static_cast<uint8_t>(xz));
    auto want = run(ref, {x, Tensor::scalar<float>(xs), xzt, w, Tensor::from_vector<float>({m}, ws),
                          Tensor::from_vector<int8_t>({m}, std::vector<int8_t>(m, 0)),
                          Tensor::scalar<float>(ys), Tensor::scalar<uint8_t>(yz),
                          Tensor::from_vector<int32_t>({m}, bias)});
    ops::QConvParams p;
    p.geometry = g;
    p.w_shape = c.w;
    p.x_signed = c.x_signed;
    p.x_zp = xz;
    p.w_signed = true;
    const auto* wb = static_cast<const uint8_t*>(w.raw_data());
    p.w.assign(wb, wb + shape_numel(c.w));
    p.w_zp = {0};
    p.bias = bias;
    for (int64_t i = 0; i < m; i++)
      p.mult.push_back(static_cast<float>(double(xs) * ws[static_cast<size_t>(i)] / ys));
    p.output = kernels::OutputType::U8;
    p.y_zp = yz;
    ops::QConvPacked op(p);
    auto got = run(op, {x});
    expect_close_q(got[0], want[0]);
    // A fused Relu: the clamp at 0 before the zero point is max(y, yz).
    ops::QConvPacked relu(*op.with_clamp(0, std::numeric_limits<float>::infinity()));
    const Tensor rt = run(relu, {x})[0];
    auto r = rt.values<uint8_t>();
    auto wv = want[0].values<uint8_t>();
    size_t off = 0;
    for (size_t i = 0; i < r.size(); i++) {
      const int expect = std::max<int>(wv[i], yz);
      ASSERT_LE(std::abs(r[i] - expect), 1);
      off += r[i] != expect;
    }
    EXPECT_LE(off, std::max<size_t>(1, r.size() / 50));
  }
}

TEST(QMatMulPacked, MatchesQLinearMatMul) {
  std::mt19937 rng(5);
  for (auto [rows, k, n] : {std::tuple{1, 64, 10}, {7, 33, 45}, {40, 128, 16}}) {
    for (bool x_signed : {false, true}) {
      Tensor x = x_signed ? random_tensor<int8_t>(rng, {2, rows, k})
                          : random_tensor<uint8_t>(rng, {2, rows, k});
      Tensor w = random_tensor<int8_t>(rng, {k, n});
      std::vector<float> ws(static_cast<size_t>(n));
      std::uniform_real_distribution<float> sd(0.5f, 2.0f);
      for (auto& v : ws) v = sd(rng) * 0.002f;
      const float xs = 0.04f, ys = 0.08f / std::sqrt(static_cast<float>(k));
      const int32_t xz = x_signed ? 5 : 133, yz = -10;
      Tensor xzt = x_signed ? Tensor::scalar<int8_t>(static_cast<int8_t>(xz))
                            : Tensor::scalar<uint8_t>(static_cast<uint8_t>(xz));
      ops::QLinearMatMul ref;
      auto want =
          run(ref, {x, Tensor::scalar<float>(xs), xzt, w, Tensor::from_vector<float>({n}, ws),
                    Tensor::from_vector<int8_t>({n}, std::vector<int8_t>(n, 0)),
                    Tensor::scalar<float>(ys), Tensor::scalar<int8_t>(yz)});
      ops::QMatMulParams p;
      p.k = k;
      p.n = n;
      p.x_signed = x_signed;
      p.x_zp = xz;
      const auto* wb = static_cast<const uint8_t*>(w.raw_data());
      p.w.assign(wb, wb + k * n);
      p.w_zp = {0};
      p.bias.assign(static_cast<size_t>(n), 0);
      for (int64_t j = 0; j < n; j++)
        p.mult.push_back(static_cast<float>(double(xs) * ws[static_cast<size_t>(j)] / ys));
      p.output = kernels::OutputType::I8;
      p.y_zp = yz;
      ops::QMatMulPacked op(p);
      expect_close_q(run(op, {x})[0], want[0]);
    }
  }
}

// One activation row with [N, K] weights goes through the kernel's matrix-vector sums; the same
// weights as [K, N] go through the tiles: every output byte equal, for each output type, with a
// bias, per-channel multipliers, a clamp, signed and unsigned activations with zero points.
TEST(QMatMulPacked, OneRowMatchesTilePath) {
  std::mt19937 rng(9);
  for (auto [k, n] : {std::pair{1280, 1000}, {37, 13}, {16, 4}, {5, 3}}) {
    for (bool x_signed : {false, true}) {
      for (auto out : {kernels::OutputType::U8, kernels::OutputType::I8, kernels::OutputType::F32,
                       kernels::OutputType::I32}) {
        SCOPED_TRACE(testing::Message() << "k=" << k << " n=" << n << " signed=" << x_signed
                                        << " out=" << static_cast<int>(out));
        Tensor x =
            x_signed ? random_tensor<int8_t>(rng, {1, k}) : random_tensor<uint8_t>(rng, {1, k});
        Tensor w = random_tensor<int8_t>(rng, {n, k});  // [N, K]
        const auto* wb = static_cast<const uint8_t*>(w.raw_data());
        ops::QMatMulParams p;
        p.k = k;
        p.n = n;
        p.x_signed = x_signed;
        p.x_zp = x_signed ? -7 : 121;
        p.w_zp = {0};
        std::uniform_int_distribution<int32_t> bd(-5000, 5000);
        std::uniform_real_distribution<float> md(0.5f, 2.0f);
        for (int64_t j = 0; j < n; j++) {
          p.bias.push_back(bd(rng));
          p.mult.push_back(md(rng) * 0.3f / static_cast<float>(k));
        }
        p.output = out;
        p.y_zp = out == kernels::OutputType::U8 ? 17 : -4;
        if (out != kernels::OutputType::I32) {
          p.min = -40.f;
          p.max = 90.f;
        }
        ops::QMatMulParams pt = p;
        p.w.assign(wb, wb + n * k);
        p.w_transposed = true;
        pt.w.resize(static_cast<size_t>(n * k));
        for (int64_t j = 0; j < n; j++)
          for (int64_t kk = 0; kk < k; kk++)
            pt.w[static_cast<size_t>(kk * n + j)] = wb[static_cast<size_t>(j * k + kk)];
        ops::QMatMulPacked one_row(p), tiles(pt);
        Tensor got = run(one_row, {x})[0], want = run(tiles, {x})[0];
        ASSERT_EQ(got.nbytes(), want.nbytes());
        ASSERT_EQ(std::memcmp(got.raw_data(), want.raw_data(), got.nbytes()), 0);
      }
    }
  }
}

}  // namespace
