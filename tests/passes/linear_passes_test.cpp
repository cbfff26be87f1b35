// batchnorm-to-affine, fold-affine, gemm-to-matmul, transpose-chains, reshape-chains.
#include <gtest/gtest.h>

#include <random>

#include "ops/elementwise/binary.h"
#include "ops/elementwise/unary.h"
#include "ops/nn/batch_norm.h"
#include "ops/nn/conv.h"
#include "ops/nn/gemm.h"
#include "ops/nn/matmul.h"
#include "ops/shape/reshape.h"
#include "ops/shape/squeeze.h"
#include "ops/shape/transpose.h"
#include "pass_test_util.h"
#include "passes/batch_norm_to_affine.h"
#include "passes/fold_affine.h"
#include "passes/gemm_to_matmul.h"
#include "passes/pipeline.h"
#include "passes/reshape_chains.h"
#include "passes/transpose_chains.h"

using namespace kiln;
using kiln::testing::compute_ops;
using kiln::testing::expect_same_outputs;
using kiln::testing::random_tensor;

namespace {

// x [1,2,5,5] -> Conv(3x3, 4 out, bias) -> BatchNorm -> Relu
Graph conv_bn(bool conv_bias) {
  Graph g;
  Outlet x = g.add_source("x", Fact::parse("1,2,5,5,f32"));
  Outlet w = g.add_const("w", random_tensor({4, 2, 3, 3}, 1));
  std::vector<Outlet> conv_in = {x, w};
  if (conv_bias) conv_in.push_back(g.add_const("b", random_tensor({4}, 2)));
  ops::WindowGeometry geo;
  geo.pads = {1, 1, 1, 1};
  int conv = g.add_node("conv", std::make_shared<ops::Conv>(geo, 1), conv_in);
  int bn = g.add_node("bn", std::make_shared<ops::BatchNorm>(1e-5f, 0.9f, false),
                      {{conv, 0},
                       g.add_const("scale", random_tensor({4}, 3)),
                       g.add_const("bias", random_tensor({4}, 4)),
                       g.add_const("mean", random_tensor({4}, 5)),
                       g.add_const("var", random_tensor({4}, 6, 0.5f, 2.0f))});
  int relu = g.add_node("relu", std::make_shared<ops::Unary>(ops::UnaryKind::Relu), {{bn, 0}});
  g.set_outputs({{relu, 0}}, {"y"});
  g.analyse();
  return g;
}

}  // namespace

TEST(BatchNormToAffine, BecomesMulAdd) {
  Graph g = conv_bn(true);
  Graph before = g;
  passes::BatchNormToAffine pass;
  EXPECT_EQ(pass.run(g), 1u);
  EXPECT_EQ(compute_ops(g), "Conv Mul Add Relu");
  expect_same_outputs(before, g, {random_tensor({1, 2, 5, 5}, 9)}, 1e-5, 1e-5);
}

TEST(FoldAffine, ConvAbsorbsBatchNorm) {
  for (bool bias : {true, false}) {
    Graph g = conv_bn(bias);
    Graph before = g;
    passes::BatchNormToAffine bn;
    passes::FoldAffine fold;
    bn.run(g);
    EXPECT_EQ(fold.run(g), 2u);  // the Mul (new weights and bias, user bypassed)
    EXPECT_EQ(fold.run(g), 2u);  // then the Add
    EXPECT_EQ(fold.run(g), 0u);
    EXPECT_EQ(compute_ops(g), "Conv Relu");
    EXPECT_EQ(g.node(g.node(g.outputs()[0].node).inputs[0].node).inputs.size(), 3u);
    expect_same_outputs(before, g, {random_tensor({1, 2, 5, 5}, 9)}, 1e-5, 1e-5);
  }
}

TEST(FoldAffine, MatMulColumnsScaledButNotWhenShared) {
  Graph g;
  Outlet x = g.add_source("x", Fact::parse("3,4,f32"));
  Outlet w = g.add_const("w", random_tensor({4, 5}, 1));
  int mm = g.add_node("mm", std::make_shared<ops::MatMul>(), {x, w});
  int mul = g.add_node("mul", std::make_shared<ops::Binary>(ops::BinaryKind::Mul),
                       {g.add_const("s", random_tensor({5}, 2)), {mm, 0}});
  g.set_outputs({{mul, 0}}, {"y"});
  g.analyse();
  Graph before = g;
  passes::FoldAffine fold;
  EXPECT_EQ(fold.run(g), 1u);  // a new MatMul on scaled weights takes the Mul's place
  EXPECT_EQ(compute_ops(g), "MatMul");
  expect_same_outputs(before, g, {random_tensor({3, 4}, 3)}, 1e-5, 1e-6);
  // The MatMul output also read elsewhere: nothing to fold.
  Graph s = before;
  s.set_outputs({{mul, 0}, {mm, 0}}, {"y", "z"});
  EXPECT_EQ(fold.run(s), 0u);
  // A scale along the rows does not fold.
  Graph r;
  Outlet rx = r.add_source("x", Fact::parse("3,4,f32"));
  int rmm = r.add_node("mm", std::make_shared<ops::MatMul>(),
                       {rx, r.add_const("w", random_tensor({4, 5}, 1))});
  int rmul = r.add_node("mul", std::make_shared<ops::Binary>(ops::BinaryKind::Mul),
                        {{rmm, 0}, r.add_const("s", random_tensor({3, 1}, 2))});
  r.set_outputs({{rmul, 0}}, {"y"});
  r.analyse();
  EXPECT_EQ(fold.run(r), 0u);
}

TEST(GemmToMatMul, TransposedScaledWithBias) {
  for (bool const_b : {true, false}) {
    Graph g;
    Outlet a = g.add_source("a", Fact::parse("4,3,f32"));  // transA: A is [K, M]
    Outlet b = const_b ? g.add_const("b", random_tensor({5, 4}, 1))
                       : g.add_source("b", Fact::parse("5,4,f32"));
    Outlet c = g.add_const("c", random_tensor({5}, 2));
    int gemm = g.add_node("gemm", std::make_shared<ops::Gemm>(0.5f, 2.0f, true, true), {a, b, c});
    g.set_outputs({{gemm, 0}}, {"y"});
    g.analyse();
    Graph before = g;
    passes::GemmToMatMul pass;
    EXPECT_EQ(pass.run(g), 1u);
    EXPECT_EQ(compute_ops(g), const_b ? "Transpose MatMul" : "Transpose Transpose MatMul Mul Add");
    std::vector<Tensor> in = {random_tensor({4, 3}, 3)};
    if (!const_b) in.push_back(random_tensor({5, 4}, 4));
    expect_same_outputs(before, g, in, 1e-5, 1e-6);
  }
}

TEST(TransposeChains, CollapseAndIdentity) {
  Graph g;
  Outlet x = g.add_source("x", Fact::parse("2,3,4,f32"));
  auto tp = [](std::vector<int64_t> p) { return std::make_shared<ops::Transpose>(p); };
  int t1 = g.add_node("t1", tp({1, 2, 0}), {x});
  int t2 = g.add_node("t2", tp({2, 0, 1}), {{t1, 0}});  // t2 . t1 = identity
  int e = g.add_node("e", std::make_shared<ops::Unary>(ops::UnaryKind::Exp), {{t2, 0}});
  int t3 = g.add_node("t3", tp({0, 2, 1}), {{e, 0}});
  int n = g.add_node("n", std::make_shared<ops::Unary>(ops::UnaryKind::Neg), {{t3, 0}});
  int t4 = g.add_node("t4", tp({1, 0, 2}), {{n, 0}});
  int t5 = g.add_node("t5", tp({0, 1, 2}), {{t4, 0}});
  g.set_outputs({{t5, 0}}, {"y"});
  g.analyse();
  Graph before = g;
  PassManager m("test");
  m.add(std::make_unique<passes::TransposeChains>());
  m.run(g);
  EXPECT_EQ(compute_ops(g), "Exp Neg Transpose");
  expect_same_outputs(before, g, {random_tensor({2, 3, 4}, 1)});
}

TEST(ReshapeChains, OneReshapeOrNone) {
  Graph g;
  Outlet x = g.add_source("x", Fact::parse("2,3,4,f32"));
  Outlet s1 = g.add_const("s1", Tensor::from_vector<int64_t>({2}, {6, -1}));
  int r1 = g.add_node("r1", std::make_shared<ops::Reshape>(), {x, s1});
  int u = g.add_node("u", std::make_shared<ops::Unsqueeze>(std::vector<int64_t>{0}), {{r1, 0}});
  int e = g.add_node("e", std::make_shared<ops::Unary>(ops::UnaryKind::Exp), {{u, 0}});
  int sq = g.add_node("sq", std::make_shared<ops::Squeeze>(std::vector<int64_t>{0}), {{e, 0}});
  Outlet s2 = g.add_const("s2", Tensor::from_vector<int64_t>({3}, {2, 3, 4}));
  int r2 = g.add_node("r2", std::make_shared<ops::Reshape>(), {{sq, 0}, s2});
  g.set_outputs({{r2, 0}}, {"y"});
  g.analyse();
  Graph before = g;
  passes::ReshapeChains pass;
  EXPECT_GT(pass.run(g), 0u);
  EXPECT_EQ(compute_ops(g), "Reshape Exp Reshape");
  EXPECT_EQ(pass.run(g), 0u);
  expect_same_outputs(before, g, {random_tensor({2, 3, 4}, 1)});
  // A reshape back to the input's shape disappears.
  Graph h;
  Outlet hx = h.add_source("x", Fact::parse("N,4,f32"));
  int hu = h.add_node("u", std::make_shared<ops::Unsqueeze>(std::vector<int64_t>{1}), {hx});
  int hs = h.add_node("s", std::make_shared<ops::Squeeze>(std::vector<int64_t>{1}), {{hu, 0}});
  h.set_outputs({{hs, 0}}, {"y"});
  h.analyse();
  EXPECT_EQ(pass.run(h), 1u);
  EXPECT_EQ(compute_ops(h), "");
}

TEST(TransposeChains, PushedThroughBinaryOps) {
  // Add(Transpose(a, p), Transpose(b, p)) * c (c constant, same rank) then Transpose(p^-1):
  // the transposes meet and vanish, the constant is transposed instead.
  Graph g;
  Outlet a = g.add_source("a", Fact::parse("2,3,4,f32"));
  Outlet b = g.add_source("b", Fact::parse("2,3,4,f32"));
  auto tp = [](std::vector<int64_t> p) { return std::make_shared<ops::Transpose>(p); };
  int ta = g.add_node("ta", tp({2, 0, 1}), {a});
  int tb = g.add_node("tb", tp({2, 0, 1}), {b});
  int add =
      g.add_node("add", std::make_shared<ops::Binary>(ops::BinaryKind::Add), {{ta, 0}, {tb, 0}});
  Outlet c = g.add_const("c", random_tensor({4, 1, 3}, 5));
  int mul = g.add_node("mul", std::make_shared<ops::Binary>(ops::BinaryKind::Mul), {{add, 0}, c});
  int back = g.add_node("back", tp({1, 2, 0}), {{mul, 0}});
  g.set_outputs({{back, 0}}, {"y"});
  g.analyse();
  Graph before = g;
  auto report = passes::declutter(g);
  EXPECT_EQ(compute_ops(g), "Add Mul");
  expect_same_outputs(before, g, {random_tensor({2, 3, 4}, 6), random_tensor({2, 3, 4}, 7)});
}

TEST(TransposeChains, NhwcBiasBetweenTransposesGoesAway) {
  // TensorFlow's NCHW <-> NHWC dance around a per-channel bias: the bias [C] is transposed
  // instead, the two Transposes meet and vanish.
  Graph g;
  Outlet x = g.add_source("x", Fact::parse("1,3,4,5,f32"));
  auto tp = [](std::vector<int64_t> p) { return std::make_shared<ops::Transpose>(p); };
  int nhwc = g.add_node("nhwc", tp({0, 2, 3, 1}), {x});
  int add = g.add_node("bias", std::make_shared<ops::Binary>(ops::BinaryKind::Add),
                       {{nhwc, 0}, g.add_const("b", random_tensor({3}, 1))});
  int relu = g.add_node("relu", std::make_shared<ops::Unary>(ops::UnaryKind::Relu), {{add, 0}});
  int nchw = g.add_node("nchw", tp({0, 3, 1, 2}), {{relu, 0}});
  g.set_outputs({{nchw, 0}}, {"y"});
  g.analyse();
  Graph before = g;
  passes::declutter(g);
  EXPECT_EQ(compute_ops(g), "Add Relu");
  const Node& a = g.node(g.node(g.outputs()[0].node).inputs[0].node);
  EXPECT_EQ(g.fact(a.inputs[1]).to_string(), "1,3,1,1,f32");
  expect_same_outputs(before, g, {random_tensor({1, 3, 4, 5}, 2)});
}
