// Empty inputs that declare huge dims ([2^31, 0], [0, 2^31, 2^31]): the ops the audit of
// tests/fuzz/empty_dims_models.py flagged (fuzz finding 36) return empty outputs of the right
// shape at once. Before, they walked the non-zero dims (hangs of minutes under ASan) or
// multiplied them (signed overflow). In the sanitizer builds these tests check for UB too.
#include <gtest/gtest.h>

#include "core/sequence.h"
#include "ops/linalg/det.h"
#include "ops/nn/mvn.h"
#include "ops/nn/softmax.h"
#include "ops/reduce/arg_reduce.h"
#include "ops/reduce/cumsum.h"
#include "ops/reduce/topk.h"
#include "ops/shape/concat.h"
#include "ops/shape/eye_like.h"
#include "ops/shape/gather.h"
#include "ops/shape/pad.h"
#include "ops/shape/split.h"
#include "ops/shape/transpose.h"
#include "ops/shape/unique.h"
#include "tests/ops/shape/test_util.h"

using namespace kiln;
using namespace kiln::test;

namespace {
constexpr int64_t kHuge = int64_t{1} << 31;

Tensor empty(Shape shape) {
  return Tensor(DatumType::F32, std::move(shape));
}
}  // namespace

TEST(EmptyHugeDims, ReductionsAndNormalizations) {
  Tensor x = empty({kHuge, kHuge, 0});
  EXPECT_EQ(eval_op(ops::ArgReduce(true, 1, true, false), {x})[0].shape(), Shape({kHuge, 1, 0}));
  EXPECT_EQ(eval_op(ops::ArgReduce(false, 0, false, true), {x})[0].shape(), Shape({kHuge, 0}));
  EXPECT_EQ(eval_op(ops::CumSum(false, false), {x, i64s({1})})[0].shape(), x.shape());
  EXPECT_EQ(eval_op(ops::Softmax(ops::SoftmaxKind::Softmax, 1), {x})[0].shape(), x.shape());
  EXPECT_EQ(eval_op(ops::Softmax(ops::SoftmaxKind::Hardmax, -1), {x})[0].shape(), x.shape());
  EXPECT_EQ(eval_op(ops::MeanVarianceNorm({0, 2}), {x})[0].shape(), x.shape());
  auto top = eval_op(ops::TopK(1, true, true), {x, i64s({2})}, 2);
  EXPECT_EQ(top[1].shape(), Shape({kHuge, 2, 0}));
  EXPECT_EQ(eval_op(ops::Det(), {empty({0, kHuge, kHuge})})[0].shape(), Shape({0}));
}

TEST(EmptyHugeDims, DataMovement) {
  Tensor x = empty({0, kHuge, kHuge});
  EXPECT_EQ(eval_op(ops::Concat(2), {x, x})[0].shape(), Shape({0, kHuge, 2 * kHuge}));
  EXPECT_EQ(eval_op(ops::Gather(1), {x, i64s({1, 0})})[0].shape(), Shape({0, 2, kHuge}));
  auto parts = eval_op(ops::Split(1, 2), {x}, 2);
  EXPECT_EQ(parts[1].shape(), Shape({0, kHuge / 2, kHuge}));
  EXPECT_EQ(eval_op(ops::Pad(ops::PadMode::Edge), {x, i64s({0, 1, 0, 0, 1, 0})})[0].shape(),
            Shape({0, kHuge + 2, kHuge}));
  EXPECT_EQ(eval_op(ops::Transpose(std::vector<int64_t>{2, 0, 1}), {x})[0].shape(),
            Shape({kHuge, 0, kHuge}));
  EXPECT_EQ(eval_op(ops::EyeLike(), {empty({kHuge, 0})})[0].shape(), Shape({kHuge, 0}));
  // Unique along an axis of 2^31 empty slices: they are all equal, one of them is kept, and
  // every slice maps to it.
  auto u = eval_op(ops::Unique(true, 1), {empty({0, 5, kHuge})}, 4);
  EXPECT_EQ(u[0].shape(), Shape({0, 1, kHuge}));
  EXPECT_EQ(u[1].values<int64_t>()[0], 0);
  EXPECT_EQ(u[2].values<int64_t>().size(), 5u);
  EXPECT_EQ(u[3].values<int64_t>()[0], 5);
}
