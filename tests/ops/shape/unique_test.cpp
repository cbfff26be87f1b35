#include "ops/shape/unique.h"

#include "base/error.h"
#include "tests/ops/reduce/op_test_util.h"

namespace kiln {
namespace {

using namespace reduce_test;
using ops::Unique;

// No slices along the axis of an empty input whose other dims are huge (fuzz finding 29: the
// copy walked 2^41 outer rows).
TEST(UniqueOp, EmptyAxisWithHugeOuterDims) {
  Tensor x(DatumType::F32, {2, int64_t{1} << 40, 0});
  auto out = run(Unique(false, 2), {x}, 4);
  EXPECT_EQ(out[0].shape(), Shape({2, int64_t{1} << 40, 0}));
  EXPECT_EQ(out[2].numel(), 0);
}

TEST(UniqueOp, SortedFlat) {
  Tensor x = f32({2, 3}, {2, 1, 1, 3, 4, 3});
  auto out = run(Unique(true, std::nullopt), {x}, 4);
  expect_values<float>(out[0], {4}, {1, 2, 3, 4});
  expect_values<int64_t>(out[1], {4}, {1, 0, 3, 4});
  expect_values<int64_t>(out[2], {6}, {1, 0, 0, 2, 3, 2});
  expect_values<int64_t>(out[3], {4}, {2, 1, 2, 1});
}

TEST(UniqueOp, UnsortedKeepsFirstOccurrenceOrder) {
  Tensor x = i64({6}, {2, 1, 1, 3, 4, 3});
  auto out = run(Unique(false, std::nullopt), {x}, 4);
  expect_values<int64_t>(out[0], {4}, {2, 1, 3, 4});
  expect_values<int64_t>(out[1], {4}, {0, 1, 3, 4});
  expect_values<int64_t>(out[2], {6}, {0, 1, 1, 2, 3, 2});
  expect_values<int64_t>(out[3], {4}, {1, 2, 2, 1});
}

TEST(UniqueOp, AlongAxis) {
  // Columns [1,0], [1,0], [0,2]: two distinct, sorted [0,2] < [1,0].
  Tensor x = f32({2, 3}, {1, 1, 0, 0, 0, 2});
  auto out = run(Unique(true, -1), {x}, 4);
  expect_values<float>(out[0], {2, 2}, {0, 1, 2, 0});
  expect_values<int64_t>(out[1], {2}, {2, 0});
  expect_values<int64_t>(out[2], {3}, {1, 1, 0});
  expect_values<int64_t>(out[3], {2}, {1, 2});
}

TEST(UniqueOp, StringsAndEmpty) {
  Tensor s = Tensor::from_vector<std::string>({3}, {"b", "a", "b"});
  Tensor y = run(Unique(true, std::nullopt), {s})[0];
  ASSERT_EQ(y.shape(), Shape{2});
  EXPECT_EQ(y.data<std::string>()[0], "a");
  EXPECT_EQ(y.data<std::string>()[1], "b");
  auto empty = run(Unique(true, std::nullopt), {Tensor(DatumType::F32, Shape{0})}, 4);
  EXPECT_EQ(empty[0].shape(), Shape{0});
  EXPECT_EQ(empty[3].shape(), Shape{0});
}

TEST(UniqueOp, FactsUseFreshDims) {
  Fact x(DatumType::F32, std::vector<Dim>{Dim::symbol("N"), 4});
  auto out = facts(Unique(true, 0), {x});
  ASSERT_EQ(out.size(), 4u);
  EXPECT_FALSE(out[0].shape[0].is_int());
  EXPECT_EQ(out[0].shape[1], Dim(4));
  EXPECT_EQ(out[1].shape[0], out[0].shape[0]);
  EXPECT_EQ(out[2].shape[0], Dim::symbol("N"));
  auto flat = facts(Unique(true, std::nullopt), {x});
  EXPECT_EQ(flat[2].shape[0], Dim::symbol("N") * Dim(4));
  EXPECT_THROW(facts(Unique(true, 2), {x}), Error);
}

}  // namespace
}  // namespace kiln
