#include "ops/quant/dynamic_quantize_linear.h"

#include <gtest/gtest.h>

#include "tests/ops/image/image_test_util.h"

using namespace kiln;
using kiln::image_test::run;
using kiln::image_test::values;

TEST(DynamicQuantizeLinear, RangeIncludesZero) {
  ops::DynamicQuantizeLinear op;
  // range [-1, 2]: scale 3/255, zero point round(1 / (3/255)) = 85.
  auto y = run(op, {Tensor::from_vector<float>({4}, {0.f, 2.f, -1.f, 1.f})}, 3);
  EXPECT_FLOAT_EQ(y[1].data<float>()[0], 3.f / 255.f);
  EXPECT_EQ(y[2].data<uint8_t>()[0], 85);
  EXPECT_EQ(values<uint8_t>(y[0]), (std::vector<uint8_t>{85, 255, 0, 170}));
  // Positive-only data still has 0 in range: zero point 0.
  auto p = run(op, {Tensor::from_vector<float>({2}, {1.f, 5.1f})}, 3);
  EXPECT_EQ(p[2].data<uint8_t>()[0], 0);
  EXPECT_EQ(values<uint8_t>(p[0]), (std::vector<uint8_t>{50, 255}));
}

TEST(DynamicQuantizeLinear, AllZerosAndFacts) {
  ops::DynamicQuantizeLinear op;
  auto y = run(op, {Tensor::from_vector<float>({3}, {0.f, 0.f, 0.f})}, 3);
  EXPECT_EQ(y[1].data<float>()[0], 0.f);
  EXPECT_EQ(values<uint8_t>(y[0]), (std::vector<uint8_t>{0, 0, 0}));
  Fact x(DatumType::F32, std::vector<Dim>{Dim::symbol("S"), 2});
  auto f = op.output_facts({&x});
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(dims_to_string(f[0].shape), "S,2");
  EXPECT_EQ(f[1].rank(), 0u);
  EXPECT_EQ(f[2].dt, DatumType::U8);
  Fact xi(DatumType::I32, std::vector<Dim>{2});
  EXPECT_THROW(op.output_facts({&xi}), Error);
}
