#include "ops/image/max_unpool.h"

#include <gtest/gtest.h>

#include "tests/ops/image/image_test_util.h"

using namespace kiln;
using kiln::image_test::run;
using kiln::image_test::values;

TEST(MaxUnpool, ScattersIntoInferredShape) {
  ops::MaxUnpool op({2, 2}, {2, 2}, {});
  Tensor x = Tensor::from_vector<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  Tensor i = Tensor::from_vector<int64_t>({1, 1, 2, 2}, {0, 3, 9, 15});
  auto y = run(op, {x, i});
  ASSERT_EQ(y[0].shape(), (Shape{1, 1, 4, 4}));
  std::vector<float> expected(16, 0.f);
  expected[0] = 1;
  expected[3] = 2;
  expected[9] = 3;
  expected[15] = 4;
  EXPECT_EQ(values<float>(y[0]), expected);
}

TEST(MaxUnpool, ExplicitLargerOutputShape) {
  ops::MaxUnpool op({2, 2}, {2, 2}, {});
  Tensor x = Tensor::from_vector<int32_t>({1, 1, 1, 1}, {7});
  Tensor i = Tensor::from_vector<int64_t>({1, 1, 1, 1}, {3});  // (1, 1) of the 2x2 layout
  auto y = run(op, {x, i, Tensor::from_vector<int64_t>({4}, {1, 1, 3, 3})});
  ASSERT_EQ(y[0].shape(), (Shape{1, 1, 3, 3}));
  EXPECT_EQ(values<int32_t>(y[0]), (std::vector<int32_t>{0, 0, 0, 0, 7, 0, 0, 0, 0}));
}

TEST(MaxUnpool, FactsAndErrors) {
  ops::MaxUnpool op({2, 2}, {2, 2}, {0, 0, 1, 1});
  Fact x(DatumType::F32, std::vector<Dim>{Dim::symbol("N"), 3, Dim::symbol("H"), 4});
  Fact i(DatumType::I64, x.shape);
  EXPECT_EQ(dims_to_string(op.output_facts({&x, &i})[0].shape), "N,3,2*H-1,7");
  Fact os = Fact::constant(Tensor::from_vector<int64_t>({4}, {1, 3, 9, 9}));
  EXPECT_EQ(dims_to_string(op.output_facts({&x, &i, &os})[0].shape), "1,3,9,9");
  Fact fi(DatumType::F32, x.shape);
  EXPECT_THROW(op.output_facts({&x, &fi}), Error);
  ops::MaxUnpool plain({2, 2}, {2, 2}, {});
  EXPECT_THROW(run(plain, {Tensor::from_vector<float>({1, 1, 1, 1}, {1}),
                           Tensor::from_vector<int64_t>({1, 1, 1, 1}, {4})}),
               Error);
}
