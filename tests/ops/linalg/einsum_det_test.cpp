#include "base/error.h"
#include "ops/linalg/det.h"
#include "ops/linalg/einsum.h"
#include "tests/ops/reduce/op_test_util.h"

namespace kiln {
namespace {

using namespace reduce_test;
using ops::Det;
using ops::Einsum;

// [[1, 2, 3], [4, 5, 6]]
Tensor a23() {
  return f32({2, 3}, {1, 2, 3, 4, 5, 6});
}

TEST(EinsumOp, MatmulTransposeAndSum) {
  Tensor b = f32({3, 2}, {1, 0, 0, 1, 1, 1});
  // [[1+3, 2+3], [4+6, 5+6]]
  expect_values<float>(run(Einsum("ij,jk->ik"), {a23(), b})[0], {2, 2}, {4, 5, 10, 11});
  expect_values<float>(run(Einsum("ij->ji"), {a23()})[0], {3, 2}, {1, 4, 2, 5, 3, 6});
  expect_values<float>(run(Einsum("ij->i"), {a23()})[0], {2}, {6, 15});
  expect_values<float>(run(Einsum("ij->"), {a23()})[0], {}, {21});
}

TEST(EinsumOp, ImplicitOutputIsAlphabetical) {
  // "ba" implicit output is "ab": a transpose.
  expect_values<float>(run(Einsum("ba"), {a23()})[0], {3, 2}, {1, 4, 2, 5, 3, 6});
  // "i,i" contracts to a scalar: 1*4 + 2*5 + 3*6 = 32.
  Tensor u = f32({3}, {1, 2, 3}), v = f32({3}, {4, 5, 6});
  expect_values<float>(run(Einsum("i,i"), {u, v})[0], {}, {32});
  // Outer product.
  expect_values<float>(run(Einsum("i,j"), {f32({2}, {1, 2}), v})[0], {2, 3}, {4, 5, 6, 8, 10, 12});
}

TEST(EinsumOp, DiagonalAndTrace) {
  Tensor m = f32({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  expect_values<float>(run(Einsum("ii->i"), {m})[0], {3}, {1, 5, 9});
  expect_values<float>(run(Einsum("ii"), {m})[0], {}, {15});
}

TEST(EinsumOp, EllipsisWithBroadcast) {
  // Batch of 2 matrices [1, 2] times a shared [2, 1] (its batch dims broadcast).
  Tensor x = f32({2, 1, 2}, {1, 2, 3, 4});
  Tensor y = f32({1, 2, 1}, {10, 1});
  expect_values<float>(run(Einsum("...ij,...jk->...ik"), {x, y})[0], {2, 1, 1}, {12, 34});
  // Implicit output keeps the ellipsis dims first.
  expect_values<float>(run(Einsum("...i"), {a23()})[0], {2, 3}, {1, 2, 3, 4, 5, 6});
  expect_values<float>(run(Einsum("i...->..."), {a23()})[0], {3}, {5, 7, 9});
}

TEST(EinsumOp, FactsCostAndErrors) {
  Dim b = Dim::symbol("B"), s = Dim::symbol("S");
  Fact x(DatumType::F32, std::vector<Dim>{b, s, 8});
  Fact w(DatumType::F32, std::vector<Dim>{8, 16});
  Einsum op("bsk,kn->bsn");
  EXPECT_EQ(facts(op, {x, w})[0].shape, (std::vector<Dim>{b, s, 16}));
  FactRefs refs{&x, &w};
  EXPECT_EQ(op.cost(refs).fma, b * s * Dim(128));
  EXPECT_THROW(facts(op, {x}), Error);
  EXPECT_THROW(facts(Einsum("ij,jk->ik"),
                     {Fact(DatumType::F32, Shape{2, 3}), Fact(DatumType::F32, Shape{4, 2})}),
               Error);
  EXPECT_THROW(Einsum("i.j"), Error);
  EXPECT_THROW(facts(Einsum("ij->iz"), {Fact(DatumType::F32, Shape{2, 3})}), Error);
  EXPECT_THROW(facts(Einsum("ijk"), {Fact(DatumType::F32, Shape{2, 3})}), Error);
}

TEST(DetOp, Values) {
  // 2*4 - 1*3 = 5; second matrix by cofactor expansion: -3.
  Tensor x = f32({2, 3, 3}, {2, 1, 0, 3, 4, 0, 0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 10});
  expect_values<float>(run(Det(), {x})[0], {2}, {5, -3}, 1e-4);
  // Singular matrix, and a row swap is needed on the second one.
  Tensor y = f32({2, 2, 2}, {1, 2, 2, 4, 0, 1, 1, 0});
  expect_values<float>(run(Det(), {y})[0], {2}, {0, -1});
}

TEST(DetOp, FactsAndErrors) {
  Fact x(DatumType::F32, std::vector<Dim>{Dim::symbol("N"), 3, 3});
  EXPECT_EQ(facts(Det(), {x})[0].shape, (std::vector<Dim>{Dim::symbol("N")}));
  EXPECT_THROW(facts(Det(), {Fact(DatumType::F32, Shape{2, 3})}), Error);
  EXPECT_THROW(facts(Det(), {Fact(DatumType::F32, Shape{3})}), Error);
  EXPECT_THROW(run(Det(), {f32({2, 3}, {1, 2, 3, 4, 5, 6})}), Error);
}

}  // namespace
}  // namespace kiln
