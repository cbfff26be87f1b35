// QAdd and QRequant against the chains they replace (DequantizeLinear, Add, [Relu,] QuantizeLinear:
// bitwise equal), and QLinearMatMul's per-tensor 8-bit path (two activations, batch broadcast, on
// the int8 kernels) against i64 sums requantized in double as the operator defines it: within one
// step, and exact on >= 99% of the elements (the kernels' float multiplier may round a tie the
// other way).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "ops/elementwise/binary.h"
#include "ops/elementwise/unary.h"
#include "ops/quant/dequantize_linear.h"
#include "ops/quant/qadd.h"
#include "ops/quant/qlinear_matmul.h"
#include "ops/quant/qrequant.h"
#include "ops/quant/quantize_linear.h"
#include "tests/ops/image/image_test_util.h"

using namespace kiln;
using kiln::image_test::run;

namespace {

Tensor random_q8(std::mt19937& rng, const Shape& shape, bool is_signed) {
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> v(static_cast<size_t>(shape_numel(shape)));
  for (auto& b : v) b = static_cast<uint8_t>(byte(rng));
  if (!is_signed) return Tensor::from_vector<uint8_t>(shape, v);
  std::vector<int8_t> s(v.begin(), v.end());
  return Tensor::from_vector<int8_t>(shape, std::vector<int8_t>(s));
}

Tensor zp_tensor(int32_t z, bool is_signed) {
  return is_signed ? Tensor::scalar<int8_t>(static_cast<int8_t>(z))
                   : Tensor::scalar<uint8_t>(static_cast<uint8_t>(z));
}

}  // namespace

TEST(QAdd, BitwiseAsDequantizeAddQuantize) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> sc(0.002f, 0.05f);
  std::uniform_int_distribution<int> zu(0, 255), zs(-128, 127);
  const Shape shapes[] = {{1, 24, 56, 56}, {1, 7}, {3, 5, 1}, {1}};
  int i = 0;
  for (const Shape& shape : shapes) {
    for (int flavour = 0; flavour < 16; flavour++, i++) {
      ops::QAddParams p;
      p.a_signed = flavour & 1;
      p.b_signed = flavour & 2;
      p.y_signed = flavour & 4;
      p.relu = flavour & 8;
      p.a_scale = sc(rng);
      p.b_scale = i % 3 == 0 ? p.a_scale : sc(rng);
      p.y_scale = sc(rng) * 1.5f;
      p.a_zp = p.a_signed ? zs(rng) : zu(rng);
      p.b_zp = p.b_signed ? zs(rng) : zu(rng);
      p.y_zp = p.y_signed ? zs(rng) : zu(rng);
      SCOPED_TRACE(testing::Message() << shape_to_string(shape) << " flavour " << flavour);
      const Tensor a = random_q8(rng, shape, p.a_signed), b = random_q8(rng, shape, p.b_signed);
      const Tensor got = run(ops::QAdd(p), {a, b})[0];
      ops::DequantizeLinear dq;
      const Tensor fa =
          run(dq, {a, Tensor::scalar<float>(p.a_scale), zp_tensor(p.a_zp, p.a_signed)})[0];
      const Tensor fb =
          run(dq, {b, Tensor::scalar<float>(p.b_scale), zp_tensor(p.b_zp, p.b_signed)})[0];
      Tensor sum = run(ops::Binary(ops::BinaryKind::Add), {fa, fb})[0];
      if (p.relu) sum = run(ops::Unary(ops::UnaryKind::Relu), {sum})[0];
      const Tensor want = run(ops::QuantizeLinear(), {sum, Tensor::scalar<float>(p.y_scale),
                                                      zp_tensor(p.y_zp, p.y_signed)})[0];
      ASSERT_EQ(got.dtype(), want.dtype());
      ASSERT_EQ(got.shape(), want.shape());
      const auto* g = static_cast<const uint8_t*>(got.raw_data());
      const auto* w = static_cast<const uint8_t*>(want.raw_data());
      for (int64_t e = 0; e < got.numel(); e++) ASSERT_EQ(g[e], w[e]) << e;
    }
  }
}

TEST(QAdd, RejectsMismatchedInputs) {
  ops::QAdd op(ops::QAddParams{});
  Fact a(DatumType::U8, std::vector<Dim>{2, 3}), b(DatumType::U8, std::vector<Dim>{3, 2}),
      s(DatumType::I8, std::vector<Dim>{2, 3});
  EXPECT_THROW(op.output_facts({&a, &b}), Error);
  EXPECT_THROW(op.output_facts({&a, &s}), Error);
  EXPECT_EQ(op.output_facts({&a, &a})[0].dt, DatumType::U8);
}

TEST(QLinearMatMul, PerTensorActivationsOnInt8Kernels) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> sc(0.001f, 0.1f);
  std::uniform_int_distribution<int> zu(0, 255), zs(-128, 127);
  struct Case {
    Shape a, b;
  };
  const Case cases[] = {{{2, 4, 16, 8}, {2, 4, 8, 16}},  // attention scores
                        {{1, 3, 7, 13}, {1, 3, 13, 5}},
                        {{2, 1, 5, 9}, {1, 3, 9, 4}},  // batch broadcast both ways
                        {{1, 1}, {1, 1}},
                        {{6, 33}, {33, 17}}};
  int flavour = 0;
  int64_t off_by_one = 0, total = 0;
  for (const Case& c : cases) {
    for (int f = 0; f < 8; f++, flavour++) {
      const bool as = f & 1, bs = f & 2, ys = f & 4;
      const float sa = sc(rng), sb = sc(rng), sy = sc(rng) * 4;
      const int32_t za = as ? zs(rng) : zu(rng), zb = bs ? zs(rng) : zu(rng),
                    zy = ys ? zs(rng) : zu(rng);
      const Tensor a = random_q8(rng, c.a, as), b = random_q8(rng, c.b, bs);
      const Tensor y = run(ops::QLinearMatMul(), {a, Tensor::scalar<float>(sa), zp_tensor(za, as),
                                                  b, Tensor::scalar<float>(sb), zp_tensor(zb, bs),
                                                  Tensor::scalar<float>(sy), zp_tensor(zy, ys)})[0];
      SCOPED_TRACE(testing::Message()
                   << shape_to_string(c.a) << " x " << shape_to_string(c.b) << " flavour " << f);
      const int64_t ra = static_cast<int64_t>(c.a.size()), rb = static_cast<int64_t>(c.b.size());
      const int64_t m = c.a[ra - 2], k = c.a[ra - 1], n = c.b[rb - 1];
      const Shape& ys_shape = y.shape();
      const int64_t batches = shape_numel(ys_shape) / (m * n);
      // Batch index t of the output -> the operands' batch offsets (numpy broadcast, same rank).
      const Shape batch(ys_shape.begin(), ys_shape.end() - 2);
      auto value = [](const Tensor& t, int64_t i) {
        return t.dtype() == DatumType::I8 ? int32_t{t.data<int8_t>()[i]}
                                          : int32_t{t.data<uint8_t>()[i]};
      };
      const double mult = static_cast<double>(sa) * sb / sy;
      const double lo = ys ? -128 : 0, hi = ys ? 127 : 255;
      for (int64_t t = 0; t < batches; t++) {
        int64_t ao = 0, bo = 0, rest = t;
        std::vector<int64_t> idx(batch.size());
        for (size_t d = batch.size(); d-- > 0;) {
          idx[d] = rest % batch[d];
          rest /= batch[d];
        }
        for (size_t d = 0; d < batch.size(); d++) {
          ao = ao * c.a[d] + (c.a[d] == 1 ? 0 : idx[d]);
          bo = bo * c.b[d] + (c.b[d] == 1 ? 0 : idx[d]);
        }
        for (int64_t i = 0; i < m; i++)
          for (int64_t j = 0; j < n; j++) {
            int64_t s = 0;
            for (int64_t e = 0; e < k; e++)
              s += static_cast<int64_t>(value(a, (ao * m + i) * k + e) - za) *
                   (value(b, (bo * k + e) * n + j) - zb);
            double q = std::nearbyint(static_cast<double>(s) * mult) + zy;
            q = q < lo ? lo : (q > hi ? hi : q);
            const int32_t d = std::abs(value(y, (t * m + i) * n + j) - static_cast<int32_t>(q));
            ASSERT_LE(d, 1) << t << "," << i << "," << j;
            off_by_one += d;
            total++;
          }
      }
    }
  }
  EXPECT_LE(off_by_one * 100, total) << off_by_one << " of " << total << " off by one";
}

TEST(QRequant, BitwiseAsDequantizeQuantize) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> sc(0.002f, 0.05f);
  std::uniform_int_distribution<int> zu(0, 255), zs(-128, 127);
  for (int f = 0; f < 16; f++) {
    const bool xs = f & 1, ys = f & 2;
    const float sx = sc(rng), sy = f & 4 ? sx : sc(rng);
    const int32_t zx = xs ? zs(rng) : zu(rng), zy = ys ? zs(rng) : zu(rng);
    std::vector<uint8_t> all(256);
    for (int b = 0; b < 256; b++) all[static_cast<size_t>(b)] = static_cast<uint8_t>(b);
    const Tensor x =
        xs ? Tensor::from_vector<int8_t>({256}, std::vector<int8_t>(all.begin(), all.end()))
           : Tensor::from_vector<uint8_t>({256}, all);
    const Tensor got = run(ops::QRequant(sx, zx, xs, sy, zy, ys), {x})[0];
    const Tensor fx =
        run(ops::DequantizeLinear(), {x, Tensor::scalar<float>(sx), zp_tensor(zx, xs)})[0];
    const Tensor want =
        run(ops::QuantizeLinear(), {fx, Tensor::scalar<float>(sy), zp_tensor(zy, ys)})[0];
    ASSERT_EQ(got.dtype(), want.dtype());
    const auto* g = static_cast<const uint8_t*>(got.raw_data());
    const auto* w = static_cast<const uint8_t*>(want.raw_data());
    for (int b = 0; b < 256; b++) ASSERT_EQ(g[b], w[b]) << "flavour " << f << " byte " << b;
  }
}
