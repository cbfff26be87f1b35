// MatMul's bias input and the passes around it: gemm-to-matmul and fold-affine fill it,
// fold-scale moves scalar scales into weights, merge-parallel-matmuls keeps the biases,
// fuse-silu, codegen (MatMulPacked / MatMulDynamic take the bias), NNEF round trips.
#include <gtest/gtest.h>

#include <random>

#include "base/error.h"
#include "io/nnef/nnef_loader.h"
#include "io/nnef/nnef_writer.h"
#include "ops/elementwise/binary.h"
#include "ops/elementwise/silu.h"
#include "ops/elementwise/unary.h"
#include "ops/nn/gemm.h"
#include "ops/nn/matmul.h"
#include "ops/shape/reshape.h"
#include "ops/shape/slice.h"
#include "ops/shape/transpose.h"
#include "pass_test_util.h"
#include "passes/fold_affine.h"
#include "passes/fold_scale.h"
#include "passes/fuse_mish.h"
#include "passes/fuse_silu.h"
#include "passes/gemm_to_matmul.h"
#include "passes/merge_parallel_matmuls.h"
#include "passes/pipeline.h"
#include "passes/reshape_around_matmul.h"
#include "passes/split_sliced_matmul.h"

using namespace kiln;
using kiln::testing::compute_ops;
using kiln::testing::expect_same_outputs;
using kiln::testing::random_tensor;
using ops::BinaryKind;

namespace {

std::shared_ptr<ops::Binary> bin(BinaryKind k) {
  return std::make_shared<ops::Binary>(k);
}

std::vector<Tensor> run_op(const Op& op, const std::vector<Tensor>& inputs) {
  std::vector<Tensor> outputs(1);
  EvalContext ctx(outputs);
  TensorRefs refs;
  for (const auto& t : inputs) refs.push_back(&t);
  op.eval(ctx, refs);
  return outputs;
}

FactRefs refs_of(const std::vector<Fact>& facts) {
  FactRefs r;
  for (const auto& f : facts) r.push_back(&f);
  return r;
}

// The input of node `id` at `index`, as the node producing it.
const Node& producer(const Graph& g, Outlet o) {
  return g.node(o.node);
}

}  // namespace

TEST(MatMulBias, AddsOneValuePerColumn) {
  Tensor a = random_tensor({2, 3, 4}, 1), b = random_tensor({4, 5}, 2), c = random_tensor({5}, 3);
  Tensor y = run_op(ops::MatMul(), {a, b})[0];
  Tensor yb = run_op(ops::MatMul(), {a, b, c})[0];
  ASSERT_EQ(yb.shape(), Shape({2, 3, 5}));
  for (int64_t i = 0; i < y.numel(); i++)
    EXPECT_FLOAT_EQ(yb.data<float>()[i], y.data<float>()[i] + c.data<float>()[i % 5]);
  // f64 too (the reference covers every MatMul type).
  Tensor yd = run_op(ops::MatMul(), {a.cast_to(DatumType::F64), b.cast_to(DatumType::F64),
                                     c.cast_to(DatumType::F64)})[0];
  EXPECT_TRUE(compare_tensors(yd.cast_to(DatumType::F32), yb, 1e-6, 1e-6).ok);
}

TEST(MatMulBias, FactsCheckTheBias) {
  std::vector<Fact> ok = {Fact::parse("S,4,f32"), Fact::parse("4,5,f32"), Fact::parse("5,f32")};
  EXPECT_EQ(ops::MatMul().output_facts(refs_of(ok))[0].to_string(), "S,5,f32");
  // The bias adds no multiply-add.
  EXPECT_EQ(ops::MatMul().cost(refs_of(ok)).fma, Dim::parse("20*S"));
  for (auto bad : {std::vector<Fact>{Fact::parse("3,4,f32"), Fact::parse("4,5,f32"),
                                     Fact::parse("4,f32")},  // wrong length
                   std::vector<Fact>{Fact::parse("3,4,f32"), Fact::parse("4,5,f32"),
                                     Fact::parse("1,5,f32")},  // not 1-D
                   std::vector<Fact>{Fact::parse("3,4,f32"), Fact::parse("4,f32"),
                                     Fact::parse("1,f32")},  // B a vector: no columns
                   std::vector<Fact>{Fact::parse("3,4,f32"), Fact::parse("4,5,f32"),
                                     Fact::parse("5,f64")}})  // type
    EXPECT_THROW(ops::MatMul().output_facts(refs_of(bad)), Error);
  EXPECT_THROW(run_op(ops::MatMul(),
                      {random_tensor({3, 4}, 1), random_tensor({4, 5}, 2), random_tensor({3}, 3)}),
               Error);
}

TEST(MatMulBias, CodegenKeepsTheBias) {
  // Constant weights: MatMulPacked with the bias in its epilogue; computed weights (attention):
  // MatMulDynamic, bias in its epilogue. Odd sizes on purpose.
  for (bool const_b : {true, false}) {
    Graph g;
    Outlet x = g.add_source("x", Fact::parse("2,7,5,f32"));
    Outlet w = const_b ? g.add_const("w", random_tensor({5, 9}, 1))
                       : g.add_source("w", Fact::parse("2,5,9,f32"));
    int mm = g.add_node("mm", std::make_shared<ops::MatMul>(),
                        {x, w, g.add_const("b", random_tensor({9}, 2))});
    g.set_outputs({{mm, 0}}, {"y"});
    g.analyse();
    Graph before = g;
    passes::optimize_passes().run(g);
    EXPECT_EQ(compute_ops(g), const_b ? "MatMulPacked" : "MatMulDynamic");
    std::vector<Tensor> in = {random_tensor({2, 7, 5}, 3)};
    if (!const_b) in.push_back(random_tensor({2, 5, 9}, 4));
    // Packed products sum in another order: float rounding of 5-term dot products.
    expect_same_outputs(before, g, in, 1e-5, 1e-6);
  }
}

TEST(GemmToMatMul, RowBiasBecomesTheMatMulBias) {
  for (const char* c_shape : {"5", "1,5", "1"}) {
    Graph g;
    Outlet a = g.add_source("a", Fact::parse("3,4,f32"));
    Shape cs = Fact::parse(std::string(c_shape) + ",f32").try_concrete_shape().value();
    int gemm = g.add_node(
        "gemm", std::make_shared<ops::Gemm>(1.0f, 2.0f, false, true),
        {a, g.add_const("b", random_tensor({5, 4}, 1)), g.add_const("c", random_tensor(cs, 2))});
    g.set_outputs({{gemm, 0}}, {"y"});
    g.analyse();
    Graph before = g;
    passes::GemmToMatMul pass;
    EXPECT_EQ(pass.run(g), 1u);
    EXPECT_EQ(compute_ops(g), "MatMul");
    EXPECT_EQ(g.node(g.outputs()[0].node).inputs.size(), 3u);
    expect_same_outputs(before, g, {random_tensor({3, 4}, 3)}, 1e-5, 1e-6);
  }
  // A full [M, N] C stays an Add.
  Graph g;
  Outlet a = g.add_source("a", Fact::parse("3,4,f32"));
  int gemm = g.add_node(
      "gemm", std::make_shared<ops::Gemm>(1.0f, 1.0f, false, false),
      {a, g.add_const("b", random_tensor({4, 5}, 1)), g.add_const("c", random_tensor({3, 5}, 2))});
  g.set_outputs({{gemm, 0}}, {"y"});
  g.analyse();
  passes::GemmToMatMul pass;
  pass.run(g);
  EXPECT_EQ(compute_ops(g), "MatMul Add");
}

TEST(FoldAffine, AddSubDivIntoMatMul) {
  // ((x·W + c1) - c2) / c3 * c4, then + c5 on the left: one MatMul with scaled weights and bias.
  Graph g;
  Outlet x = g.add_source("x", Fact::parse("2,3,4,f32"));
  int mm = g.add_node("mm", std::make_shared<ops::MatMul>(),
                      {x, g.add_const("w", random_tensor({4, 5}, 1))});
  int add = g.add_node("add", bin(BinaryKind::Add),
                       {{mm, 0}, g.add_const("c1", random_tensor({1, 1, 5}, 2))});
  int sub =
      g.add_node("sub", bin(BinaryKind::Sub), {{add, 0}, g.add_const("c2", random_tensor({5}, 3))});
  int div = g.add_node("div", bin(BinaryKind::Div),
                       {{sub, 0}, g.add_const("c3", random_tensor({5}, 4, 0.5f, 2.0f))});
  int add2 = g.add_node("add2", bin(BinaryKind::Add),
                        {g.add_const("c5", random_tensor({1}, 5)), {div, 0}});
  g.set_outputs({{add2, 0}}, {"y"});
  g.analyse();
  Graph before = g;
  PassManager m("test");
  m.add(std::make_unique<passes::FoldAffine>());
  m.run(g);
  EXPECT_EQ(compute_ops(g), "MatMul");
  const Node& out = g.node(g.outputs()[0].node);
  EXPECT_EQ(out.name, "add2");  // the folded node is named after the value it computes
  EXPECT_EQ(g.fact(out.inputs[2]).to_string(), "5,f32");
  expect_same_outputs(before, g, {random_tensor({2, 3, 4}, 6)}, 1e-5, 1e-6);
}

TEST(FoldAffine, BiasKeepsTheConstantsName) {
  // An Add of a [1, N] constant (as NNEF writes the bias) gives a 1-D bias of the same name.
  Graph g;
  Outlet x = g.add_source("x", Fact::parse("3,4,f32"));
  int mm = g.add_node("mm", std::make_shared<ops::MatMul>(),
                      {x, g.add_const("w", random_tensor({4, 5}, 1))});
  int add = g.add_node("y", bin(BinaryKind::Add),
                       {{mm, 0}, g.add_const("layer_bias", random_tensor({1, 5}, 2))});
  g.set_outputs({{add, 0}}, {"y"});
  g.analyse();
  passes::FoldAffine pass;
  EXPECT_GT(pass.run(g), 0u);
  const Node& out = g.node(g.outputs()[0].node);
  EXPECT_EQ(out.op->name(), "MatMul");
  EXPECT_EQ(producer(g, out.inputs[2]).name, "layer_bias");
}

TEST(FoldAffine, WhatDoesNotFold) {
  // c - x (negates the product), an Add along the rows, an Add growing the shape, and a
  // product read twice.
  auto graph = [](BinaryKind k, const char* c_fact, bool const_first, bool shared) {
    Graph g;
    Outlet x = g.add_source("x", Fact::parse("3,4,f32"));
    int mm = g.add_node("mm", std::make_shared<ops::MatMul>(),
                        {x, g.add_const("w", random_tensor({4, 5}, 1))});
    Shape cs = Fact::parse(c_fact).try_concrete_shape().value();
    Outlet c = g.add_const("c", random_tensor(cs, 2));
    int user =
        g.add_node("u", bin(k),
                   const_first ? std::vector<Outlet>{c, {mm, 0}} : std::vector<Outlet>{{mm, 0}, c});
    if (shared)
      g.set_outputs({{user, 0}, {mm, 0}}, {"y", "z"});
    else
      g.set_outputs({{user, 0}}, {"y"});
    g.analyse();
    return g;
  };
  passes::FoldAffine pass;
  for (Graph g :
       {graph(BinaryKind::Sub, "5,f32", true, false), graph(BinaryKind::Div, "5,f32", true, false),
        graph(BinaryKind::Add, "3,1,f32", false, false),
        graph(BinaryKind::Add, "2,1,5,f32", false, false),
        graph(BinaryKind::Add, "5,f32", false, true)})
    EXPECT_EQ(pass.run(g), 0u);
  Graph ok = graph(BinaryKind::Sub, "5,f32", false, false);
  EXPECT_GT(pass.run(ok), 0u);
}

namespace {

// Attention scores on x [1, 4, 6], 2 heads of 3: q = Transpose(Reshape(x·Wq + bq)),
// kt = Transpose(Reshape(x·Wk)), y = (q·kt) op k.
Graph attention(BinaryKind op, float k, bool q_shared) {
  Graph g;
  Outlet x = g.add_source("x", Fact::parse("1,4,6,f32"));
  Outlet shape = g.add_const("shape", Tensor::from_vector<int64_t>({4}, {1, 4, 2, 3}));
  auto tp = [](std::vector<int64_t> p) { return std::make_shared<ops::Transpose>(p); };
  int q0 = g.add_node(
      "q0", std::make_shared<ops::MatMul>(),
      {x, g.add_const("wq", random_tensor({6, 6}, 1)), g.add_const("bq", random_tensor({6}, 2))});
  int q1 = g.add_node("q1", std::make_shared<ops::Reshape>(), {{q0, 0}, shape});
  int q = g.add_node("q", tp({0, 2, 1, 3}), {{q1, 0}});
  int k0 = g.add_node("k0", std::make_shared<ops::MatMul>(),
                      {x, g.add_const("wk", random_tensor({6, 6}, 3))});
  int k1 = g.add_node("k1", std::make_shared<ops::Reshape>(), {{k0, 0}, shape});
  int kt = g.add_node("kt", tp({0, 2, 3, 1}), {{k1, 0}});
  int s = g.add_node("s", std::make_shared<ops::MatMul>(), {{q, 0}, {kt, 0}});
  int y = g.add_node("y", bin(op), {{s, 0}, g.add_const("k", Tensor::scalar<float>(k))});
  if (q_shared)
    g.set_outputs({{y, 0}, {q, 0}}, {"y", "q"});
  else
    g.set_outputs({{y, 0}}, {"y"});
  g.analyse();
  return g;
}

}  // namespace

TEST(FoldScale, ScoresScaleGoesIntoTheQueryWeights) {
  for (BinaryKind op : {BinaryKind::Div, BinaryKind::Mul}) {
    Graph g = attention(op, 8.0f, false);
    Graph before = g;
    passes::FoldScale pass;
    EXPECT_GT(pass.run(g), 0u);
    EXPECT_EQ(compute_ops(g), "MatMul Reshape Transpose MatMul Reshape Transpose MatMul");
    EXPECT_EQ(pass.run(g), 0u);
    expect_same_outputs(before, g, {random_tensor({1, 4, 6}, 4)}, 1e-5, 1e-6);
  }
  // The query also read elsewhere: its scale cannot change; the key's path has no such
  // reader, so the scale goes there instead.
  Graph g = attention(BinaryKind::Div, 8.0f, true);
  Graph before = g;
  passes::FoldScale pass;
  EXPECT_GT(pass.run(g), 0u);
  EXPECT_EQ(g.node(g.outputs()[0].node).op->name(), "MatMul");
  expect_same_outputs(before, g, {random_tensor({1, 4, 6}, 4)}, 1e-5, 1e-6);
}

TEST(FoldScale, OnlyScalarsAndNotThroughABias) {
  passes::FoldScale pass;
  {
    Graph g;  // per-column scale: fold-affine's work, not this pass's
    Outlet x = g.add_source("x", Fact::parse("3,4,f32"));
    Outlet t = {g.add_node("t", std::make_shared<ops::Transpose>(std::vector<int64_t>{1, 0}), {x}),
                0};
    int mm = g.add_node("mm", std::make_shared<ops::MatMul>(),
                        {g.add_const("w", random_tensor({5, 4}, 1)), t});
    int y =
        g.add_node("y", bin(BinaryKind::Mul), {{mm, 0}, g.add_const("s", random_tensor({3}, 2))});
    g.set_outputs({{y, 0}}, {"y"});
    g.analyse();
    EXPECT_EQ(pass.run(g), 0u);
  }
  {
    Graph g;  // (A·B + c) * 2 with A, B computed: the bias c is in the way
    Outlet a = g.add_source("a", Fact::parse("3,4,f32"));
    int pa = g.add_node("pa", std::make_shared<ops::MatMul>(),
                        {a, g.add_const("w", random_tensor({4, 4}, 1))});
    Outlet b = g.add_source("b", Fact::parse("4,5,f32"));
    int mm = g.add_node("mm", std::make_shared<ops::MatMul>(),
                        {{pa, 0}, b, g.add_const("c", random_tensor({5}, 2))});
    int y = g.add_node("y", bin(BinaryKind::Mul),
                       {{mm, 0}, g.add_const("s", Tensor::scalar<float>(2))});
    g.set_outputs({{y, 0}}, {"y"});
    g.analyse();
    EXPECT_EQ(pass.run(g), 0u);
  }
}

TEST(FuseSilu, BothOrdersAndNotWhenSigmoidIsShared) {
  for (int variant = 0; variant < 3; variant++) {
    Graph g;
    Outlet x = g.add_source("x", Fact::parse("3,8,f32"));
    int s = g.add_node("s", std::make_shared<ops::Unary>(ops::UnaryKind::Sigmoid), {x});
    std::vector<Outlet> in =
        variant == 1 ? std::vector<Outlet>{x, {s, 0}} : std::vector<Outlet>{{s, 0}, x};
    int y = g.add_node("y", bin(BinaryKind::Mul), in);
    if (variant == 2)
      g.set_outputs({{y, 0}, {s, 0}}, {"y", "s"});
    else
      g.set_outputs({{y, 0}}, {"y"});
    g.analyse();
    Graph before = g;
    passes::FuseSilu pass;
    EXPECT_EQ(pass.run(g) > 0, variant != 2);
    EXPECT_EQ(compute_ops(g), variant == 2 ? "Sigmoid Mul" : "Silu");
    expect_same_outputs(before, g, {random_tensor({3, 8}, 5, -8, 8)}, 1e-6, 1e-6);
  }
  {
    Graph g;  // Sigmoid(x) * z is no Silu
    Outlet x = g.add_source("x", Fact::parse("3,8,f32"));
    Outlet z = g.add_source("z", Fact::parse("3,8,f32"));
    int s = g.add_node("s", std::make_shared<ops::Unary>(ops::UnaryKind::Sigmoid), {x});
    int y = g.add_node("y", bin(BinaryKind::Mul), {{s, 0}, z});
    g.set_outputs({{y, 0}}, {"y"});
    g.analyse();
    passes::FuseSilu pass;
    EXPECT_EQ(pass.run(g), 0u);
  }
}

TEST(FuseMish, BothOrdersAndNotWhenAPartIsShared) {
  // x * Tanh(Softplus(x)) in either order becomes Mish(x); a Softplus or Tanh read elsewhere, or
  // a product with another tensor, stays.
  for (int variant = 0; variant < 4; variant++) {
    Graph g;
    Outlet x = g.add_source("x", Fact::parse("3,8,f32"));
    Outlet z = g.add_source("z", Fact::parse("3,8,f32"));
    int sp = g.add_node("sp", std::make_shared<ops::Unary>(ops::UnaryKind::Softplus), {x});
    int th = g.add_node("th", std::make_shared<ops::Unary>(ops::UnaryKind::Tanh), {{sp, 0}});
    Outlet other = variant == 3 ? z : x;
    std::vector<Outlet> in =
        variant == 1 ? std::vector<Outlet>{other, {th, 0}} : std::vector<Outlet>{{th, 0}, other};
    int y = g.add_node("y", bin(BinaryKind::Mul), in);
    if (variant == 2)
      g.set_outputs({{y, 0}, {sp, 0}}, {"y", "sp"});
    else
      g.set_outputs({{y, 0}}, {"y"});
    g.analyse();
    Graph before = g;
    passes::FuseMish pass;
    const bool fused = variant < 2;
    EXPECT_EQ(pass.run(g) > 0, fused);
    EXPECT_EQ(compute_ops(g), fused ? "Mish" : "Softplus Tanh Mul");
    expect_same_outputs(before, g, {random_tensor({3, 8}, 5, -8, 8), random_tensor({3, 8}, 6)},
                        1e-6, 1e-6);
  }
}

TEST(Silu, ReferenceAndVectorizedAgree) {
  // The vectorized form's sigmoid has |abs err| <= 2e-7 (vec_math.h); times |x| <= 10 that is
  // 2e-6, plus one float rounding of the product: atol 3e-6, rtol 1e-6.
  for (int64_t n : {1, 7, 255, 256, 257, 1000}) {
    Tensor x = random_tensor({n}, unsigned(n), -10, 10);
    Tensor ref = run_op(ops::Silu(), {x})[0];
    Tensor xd = x.cast_to(DatumType::F64);
    Tensor refd = run_op(ops::Silu(), {xd})[0];
    for (int64_t i = 0; i < n; i++) {
      double v = xd.data<double>()[i];
      EXPECT_NEAR(refd.data<double>()[i], v / (1 + std::exp(-v)), 1e-12);
    }
    EXPECT_TRUE(compare_tensors(ref, refd.cast_to(DatumType::F32), 1e-6, 1e-7).ok);
    std::vector<Fact> facts = {Fact::parse(std::to_string(n) + ",f32")};
    OpPtr fast = ops::Silu().codegen(refs_of(facts));
    ASSERT_TRUE(fast);
    EXPECT_EQ(fast->name(), "SiluF32");
    auto r = compare_tensors(run_op(*fast, {x})[0], ref, 1e-6, 3e-6);
    EXPECT_TRUE(r.ok) << n << ": " << r.summary();
  }
  // Far tails: no overflow, no NaN.
  Tensor tails = Tensor::from_vector<float>({4}, {-200.0f, -90.0f, 90.0f, 200.0f});
  Tensor y = run_op(ops::Silu(), {tails})[0];
  EXPECT_EQ(y.data<float>()[3], 200.0f);
  EXPECT_LE(std::abs(y.data<float>()[0]), 1e-30f);
  std::vector<Fact> ints = {Fact::parse("3,i32")};
  EXPECT_THROW(ops::Silu().output_facts(refs_of(ints)), Error);
}

TEST(MergeParallelMatMuls, BiasesSideBySide) {
  Graph g;
  Outlet x = g.add_source("x", Fact::parse("3,8,f32"));
  int a = g.add_node(
      "a", std::make_shared<ops::MatMul>(),
      {x, g.add_const("w1", random_tensor({8, 4}, 1)), g.add_const("b1", random_tensor({4}, 2))});
  int b = g.add_node("b", std::make_shared<ops::MatMul>(),
                     {x, g.add_const("w2", random_tensor({8, 6}, 3))});
  g.set_outputs({{a, 0}, {b, 0}}, {"a", "b"});
  g.analyse();
  Graph before = g;
  passes::MergeParallelMatMuls pass;
  EXPECT_GT(pass.run(g), 0u);
  EXPECT_EQ(compute_ops(g), "MatMul Split");
  for (const auto& n : g.nodes())
    if (n.op->name() == "MatMul") {
      EXPECT_EQ(n.inputs.size(), 3u);
    }
  expect_same_outputs(before, g, {random_tensor({3, 8}, 4)}, 1e-5, 1e-6);
}

TEST(NnefLinearSilu, BiasAndSiluRoundTrip) {
  // MatMul with bias then Silu: written as matmul + add and mul(x, sigmoid(x)); read back and
  // decluttered it is the same graph, written again the same text.
  Graph g;
  Outlet x = g.add_source("x", Fact::parse("2,3,4,f32"));
  int mm = g.add_node(
      "lin", std::make_shared<ops::MatMul>(),
      {x, g.add_const("w", random_tensor({4, 5}, 1)), g.add_const("bias", random_tensor({5}, 2))});
  int act = g.add_node("act", std::make_shared<ops::Silu>(), {{mm, 0}});
  g.set_outputs({{act, 0}}, {"y"});
  g.analyse();
  auto written = nnef::write_nnef(g);
  const std::string& text = written.files.at("graph.nnef");
  EXPECT_NE(text.find("matmul("), std::string::npos) << text;
  EXPECT_NE(text.find("sigmoid("), std::string::npos) << text;
  auto back = nnef::load_nnef_files(written.files);
  passes::run_to_stage(*back, passes::Stage::Declutter);
  EXPECT_EQ(compute_ops(*back), "MatMul Silu");
  EXPECT_EQ(nnef::write_nnef(*back).files.at("graph.nnef"), text);
  expect_same_outputs(g, *back, {random_tensor({2, 3, 4}, 3)}, 1e-6, 1e-6);
}

namespace {

Outlet i64s(Graph& g, const std::string& name, std::vector<int64_t> v) {
  return g.add_const(name, Tensor::from_vector<int64_t>({int64_t(v.size())}, v));
}

// x [3, 8] · W [8, 9] + b, then Slices of the last axis (or, `other_reader`, also a Relu).
Graph sliced_projection(bool other_reader, int64_t axis) {
  Graph g;
  Outlet x = g.add_source("x", Fact::parse("3,8,f32"));
  int mm = g.add_node(
      "qkv", std::make_shared<ops::MatMul>(),
      {x, g.add_const("w", random_tensor({8, 9}, 1)), g.add_const("b", random_tensor({9}, 2))});
  std::vector<Outlet> outs;
  std::vector<std::string> names;
  for (int64_t s = 0; s < 3; s++) {
    int sl = g.add_node("s" + std::to_string(s), std::make_shared<ops::Slice>(),
                        {{mm, 0},
                         i64s(g, "b" + std::to_string(s), {s}),
                         i64s(g, "e" + std::to_string(s), {s == 2 ? 100 : s + 2}),
                         i64s(g, "a" + std::to_string(s), {axis})});
    outs.push_back({sl, 0});
    names.push_back("y" + std::to_string(s));
  }
  if (other_reader) {
    outs.push_back(
        {g.add_node("r", std::make_shared<ops::Unary>(ops::UnaryKind::Relu), {{mm, 0}}), 0});
    names.push_back("r");
  }
  g.set_outputs(outs, names);
  g.analyse();
  return g;
}

}  // namespace

TEST(SplitSlicedMatMul, OneMatMulPerSlice) {
  // Overlapping slices and one clamped at the end, as ONNX allows.
  Graph g = sliced_projection(false, -1);
  Graph before = g;
  passes::SplitSlicedMatMul pass;
  EXPECT_GT(pass.run(g), 0u);
  EXPECT_EQ(compute_ops(g), "MatMul MatMul MatMul");
  EXPECT_EQ(g.fact(g.outputs()[2]).to_string(), "3,7,f32");
  expect_same_outputs(before, g, {random_tensor({3, 8}, 3)}, 1e-6, 1e-6);
  // Another reader of the whole product, or slices of another axis: left alone.
  Graph shared = sliced_projection(true, -1);
  EXPECT_EQ(pass.run(shared), 0u);
  Graph rows = sliced_projection(false, 0);
  EXPECT_EQ(pass.run(rows), 0u);
}

TEST(ReshapeAroundMatMul, BothDirections) {
  passes::ReshapeAroundMatMul pass;
  auto graph = [](Shape in, Shape r1, Shape r2) {
    Graph g;
    Outlet x = g.add_source("x", Fact(DatumType::F32, std::vector<Dim>(in.begin(), in.end())));
    int a = g.add_node("r1", std::make_shared<ops::Reshape>(),
                       {x, i64s(g, "s1", std::vector<int64_t>(r1.begin(), r1.end()))});
    int mm = g.add_node("mm", std::make_shared<ops::MatMul>(),
                        {{a, 0},
                         g.add_const("w", random_tensor({6, 4}, 1)),
                         g.add_const("b", random_tensor({4}, 2))});
    int y = g.add_node("r2", std::make_shared<ops::Reshape>(),
                       {{mm, 0}, i64s(g, "s2", std::vector<int64_t>(r2.begin(), r2.end()))});
    g.set_outputs({{y, 0}}, {"y"});
    g.analyse();
    return g;
  };
  {
    // [1,5,6] -> [5,1,6] (last dim kept) · W -> [5,1,4] -> [5,2,2]: the first reshape goes.
    Graph g = graph({1, 5, 6}, {5, 1, 6}, {5, 2, 2});
    Graph before = g;
    EXPECT_GT(pass.run(g), 0u);
    EXPECT_EQ(compute_ops(g), "MatMul Reshape");
    EXPECT_EQ(g.fact(g.node(g.outputs()[0].node).inputs[0]).to_string(), "1,5,4,f32");
    expect_same_outputs(before, g, {random_tensor({1, 5, 6}, 3)}, 1e-6, 1e-6);
  }
  {
    // [5,2,3] -> [5,6] · W -> [5,4] -> [1,5,4] (last dim kept): the second reshape goes before
    // the product, next to the first.
    Graph g = graph({5, 2, 3}, {5, 6}, {1, 5, 4});
    Graph before = g;
    EXPECT_GT(pass.run(g), 0u);
    EXPECT_EQ(compute_ops(g), "Reshape Reshape MatMul");
    EXPECT_EQ(g.node(g.outputs()[0].node).op->name(), "MatMul");
    expect_same_outputs(before, g, {random_tensor({5, 2, 3}, 4)}, 1e-6, 1e-6);
  }
  {
    // Neither reshape keeps the last dim: nothing to move.
    Graph g = graph({5, 2, 3}, {5, 6}, {10, 2});
    EXPECT_EQ(pass.run(g), 0u);
  }
}

TEST(FuseOutput, SiluJoinsThePackedProduct) {
  // At the optimize stage a Silu right after a MatMul becomes a step of its epilogue.
  Graph g;
  Outlet x = g.add_source("x", Fact::parse("7,5,f32"));
  int mm = g.add_node(
      "mm", std::make_shared<ops::MatMul>(),
      {x, g.add_const("w", random_tensor({5, 9}, 1)), g.add_const("b", random_tensor({9}, 2))});
  int act = g.add_node("act", std::make_shared<ops::Silu>(), {{mm, 0}});
  g.set_outputs({{act, 0}}, {"y"});
  g.analyse();
  Graph before = g;
  passes::optimize_passes().run(g);
  EXPECT_EQ(compute_ops(g), "MatMulPacked");
  // Packed product order and the vectorized sigmoid (2e-7 absolute, times |x| < 4 here).
  expect_same_outputs(before, g, {random_tensor({7, 5}, 3)}, 1e-5, 2e-6);
}
