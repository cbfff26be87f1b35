#include "core/tensor.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/half.h"
#include "core/tensor_compare.h"

using namespace kiln;

TEST(Tensor, ConstructionIsZeroedAndAligned) {
  Tensor t(DatumType::F32, {2, 3});
  EXPECT_EQ(t.numel(), 6);
  EXPECT_EQ(t.nbytes(), 24u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % kTensorAlignment, 0u);
  for (float v : t.values<float>()) EXPECT_EQ(v, 0.0f);
  EXPECT_THROW(t.data<int64_t>(), Error);
}

TEST(Tensor, ScalarAndEmpty) {
  auto s = Tensor::scalar<int64_t>(7);
  EXPECT_EQ(s.rank(), 0u);
  EXPECT_EQ(s.numel(), 1);
  EXPECT_EQ(s.value_as_i64(0), 7);
  Tensor e(DatumType::F32, {0, 5});
  EXPECT_EQ(e.numel(), 0);
  EXPECT_EQ(e.to_string(), "0,5,f32 []");
}

TEST(Tensor, ViewsShareStorage) {
  auto t = Tensor::from_vector<float>({2, 3}, {0, 1, 2, 3, 4, 5});
  auto r = t.reshaped({3, 2});
  EXPECT_TRUE(r.shares_storage_with(t));
  EXPECT_THROW(t.reshaped({4, 2}), Error);
  auto row = t.slice_outer(1, 2);
  EXPECT_EQ(row.shape(), (Shape{1, 3}));
  EXPECT_EQ(row.values<float>()[0], 3.0f);
  auto c = t.clone();
  c.data<float>()[0] = 42;
  EXPECT_EQ(t.values<float>()[0], 0.0f);
}

TEST(Tensor, ResetReusesStorageOnlyWhenUnique) {
  Tensor t(DatumType::F32, {4, 4});
  const void* before = t.raw_data();
  t.reset(DatumType::F32, {2, 8});
  EXPECT_EQ(t.raw_data(), before);  // same size: reused
  t.reset(DatumType::I32, {3, 4});
  EXPECT_EQ(t.raw_data(), before);  // smaller: reused
  Tensor alias = t;
  t.reset(DatumType::F32, {2, 2});
  EXPECT_NE(t.raw_data(), alias.raw_data());  // shared: fresh storage, alias untouched
  t.reset(DatumType::F32, {100});
  EXPECT_EQ(t.numel(), 100);
}

TEST(Tensor, CastConvertsValues) {
  auto t = Tensor::from_vector<float>({4}, {1.7f, -2.5f, 0.0f, NAN});
  auto i = t.cast_to(DatumType::I32);
  EXPECT_EQ(i.values<int32_t>()[0], 1);
  EXPECT_EQ(i.values<int32_t>()[1], -2);
  auto b = t.cast_to(DatumType::Bool);
  EXPECT_TRUE(b.values<bool>()[0]);
  EXPECT_FALSE(b.values<bool>()[2]);
  EXPECT_TRUE(b.values<bool>()[3]);
  auto h = t.cast_to(DatumType::F16);
  EXPECT_EQ(static_cast<float>(h.values<f16>()[1]), -2.5f);
}

TEST(Tensor, StringsLiveInTheirStorage) {
  auto t = Tensor::from_vector<std::string>({2}, {"a", "bc"});
  auto c = t.clone();
  EXPECT_TRUE(c.equals(t));
  c.data<std::string>()[1] = "zz";
  EXPECT_FALSE(c.equals(t));
}

TEST(Tensor, HugeShapesAreErrors) {
  EXPECT_THROW(Tensor(DatumType::F32, {1 << 30, 1 << 30, 1 << 30}), Error);
  EXPECT_THROW(Tensor(DatumType::F32, {-1}), Error);
  EXPECT_THROW(Tensor(DatumType::F32, {int64_t{1} << 40}), Error);
  // Past 4 GiB: a 32-bit size_t would wrap these counts (2^40 -> 0, 2^31 * 4 bytes -> 0).
  EXPECT_THROW(Tensor(DatumType::U8, {int64_t{1} << 40}), Error);
  EXPECT_THROW(Tensor(DatumType::F64, {int64_t{1} << 20, int64_t{1} << 20}), Error);
}

TEST(Tensor, ResetToAHugeShapeIsAnErrorAndKeepsTheTensor) {
  auto t = Tensor::from_vector<float>({2}, {1.0f, 2.0f});
  EXPECT_THROW(t.reset(DatumType::F32, {int64_t{1} << 40}), Error);
  EXPECT_THROW(t.reset(DatumType::F32, {int64_t{1} << 20, int64_t{1} << 21}), Error);
  ASSERT_EQ(t.shape(), (Shape{2}));
  EXPECT_EQ(t.data<float>()[1], 2.0f);
}

TEST(Half, F16RoundTrip) {
  for (float v : {0.0f, 1.0f, -2.0f, 0.5f, 65504.0f, 6.1035156e-05f, 5.9604645e-08f})
    EXPECT_EQ(static_cast<float>(f16(v)), v) << v;
  EXPECT_TRUE(std::isinf(static_cast<float>(f16(70000.0f))));
  EXPECT_TRUE(std::isnan(static_cast<float>(f16(NAN))));
  EXPECT_EQ(f16(1.0f).bits, 0x3c00);
  EXPECT_EQ(f16(1.0f + 1.0f / 4096).bits, 0x3c00);  // ties to even
  EXPECT_EQ(static_cast<float>(bf16(1.0f)), 1.0f);
  EXPECT_EQ(bf16(3.14159f).bits, 0x4049);
}

TEST(TensorCompare, TolerancesAndNaN) {
  auto e = Tensor::from_vector<float>({3}, {1.0f, NAN, 100.0f});
  auto a = Tensor::from_vector<float>({3}, {1.000005f, NAN, 100.005f});
  EXPECT_TRUE(compare_tensors(a, e).ok);
  auto b = Tensor::from_vector<float>({3}, {1.0f, NAN, 100.1f});
  auto r = compare_tensors(b, e);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.mismatches, 1);
  EXPECT_EQ(r.max_error_index, (Shape{2}));
  EXPECT_NEAR(r.max_abs_error, 0.1, 1e-4);
  EXPECT_FALSE(compare_tensors(Tensor::from_vector<int64_t>({1}, {3}),
                               Tensor::from_vector<int64_t>({1}, {4}))
                   .ok);
  EXPECT_FALSE(compare_tensors(e, e.reshaped({1, 3})).ok);
  EXPECT_FALSE(compare_tensors(e, e.cast_to(DatumType::F64)).ok);
}
