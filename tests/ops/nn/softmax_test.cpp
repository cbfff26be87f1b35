#include "ops/nn/softmax.h"

#include "base/error.h"
#include "tests/ops/reduce/op_test_util.h"

namespace kiln {
namespace {

using namespace reduce_test;
using ops::Softmax;
using ops::SoftmaxKind;

Tensor sample() {
  return f32({2, 3}, {1, 2, 3, 4, 5, 6});
}

TEST(SoftmaxOp, AlongLastAxis) {
  // e^k / (e + e^2 + e^3), by hand.
  std::vector<float> row{0.09003057f, 0.24472847f, 0.66524096f};
  std::vector<float> both = row;
  both.insert(both.end(), row.begin(), row.end());
  expect_values<float>(run(Softmax(SoftmaxKind::Softmax, -1), {sample()})[0], {2, 3}, both);
}

TEST(SoftmaxOp, LogSoftmaxAlongFirstAxis) {
  // log(e^1 / (e^1 + e^4)) = -log(1 + e^3) = -3.04858735.
  float a = -3.04858735f, b = -0.04858735f;
  expect_values<float>(run(Softmax(SoftmaxKind::LogSoftmax, 0), {sample()})[0], {2, 3},
                       {a, a, a, b, b, b});
}

TEST(SoftmaxOp, LargeNumbersDoNotOverflow) {
  Tensor x = f32({1, 2}, {10000, 10000});
  expect_values<float>(run(Softmax(SoftmaxKind::Softmax, 1), {x})[0], {1, 2}, {0.5f, 0.5f});
}

TEST(SoftmaxOp, Coerce2dFlattensFromAxis) {
  // Legacy semantics: axis 1 of [1, 2, 2] normalizes over the 4 trailing elements at once.
  Tensor x = f32({1, 2, 2}, {0, 0, 0, 0});
  expect_values<float>(run(Softmax(SoftmaxKind::Softmax, 1, true), {x})[0], {1, 2, 2},
                       {0.25f, 0.25f, 0.25f, 0.25f});
  // Along axis 2 only: pairs.
  expect_values<float>(run(Softmax(SoftmaxKind::Softmax, 2), {x})[0], {1, 2, 2},
                       {0.5f, 0.5f, 0.5f, 0.5f});
}

TEST(SoftmaxOp, HardmaxPicksFirstMaximum) {
  Tensor x = f32({2, 3}, {3, 1, 3, 0, 2, 1});
  expect_values<float>(run(Softmax(SoftmaxKind::Hardmax, -1), {x})[0], {2, 3}, {1, 0, 0, 0, 1, 0});
  expect_values<float>(run(Softmax(SoftmaxKind::Hardmax, 0), {x})[0], {2, 3}, {1, 0, 1, 0, 1, 0});
}

TEST(SoftmaxOp, FactsCostAndErrors) {
  Fact x(DatumType::F32, std::vector<Dim>{Dim::symbol("N"), 10});
  Softmax op(SoftmaxKind::Softmax, -1);
  EXPECT_EQ(facts(op, {x})[0].shape, x.shape);
  FactRefs refs{&x};
  EXPECT_EQ(op.cost(refs).other, Dim::symbol("N") * Dim(10));
  EXPECT_THROW(facts(Softmax(SoftmaxKind::Softmax, 2), {x}), Error);
  EXPECT_THROW(facts(op, {Fact(DatumType::I64, Shape{3})}), Error);
}

TEST(SoftmaxOp, EmptyInput) {
  Tensor x(DatumType::F32, Shape{0, 3});
  EXPECT_EQ(run(Softmax(SoftmaxKind::Softmax, 1), {x})[0].shape(), (Shape{0, 3}));
}

}  // namespace
}  // namespace kiln
