// Symbolic shape propagation through Shape -> Gather -> Unsqueeze -> Concat -> Reshape chains.
#include <gtest/gtest.h>

#include "core/graph.h"
#include "core/state.h"
#include "ops/shape/concat.h"
#include "ops/shape/gather.h"
#include "ops/shape/reshape.h"
#include "ops/shape/shape_of.h"
#include "ops/shape/slice.h"
#include "ops/shape/squeeze.h"

using namespace kiln;

namespace {

Tensor i64s(std::vector<int64_t> v) {
  return Tensor::from_vector<int64_t>({static_cast<int64_t>(v.size())}, v);
}

}  // namespace

TEST(ShapeChain, ShapeGatherUnsqueezeConcatReshape) {
  auto g = std::make_shared<Graph>();
  Outlet x = g->add_source("x", Fact::parse("1,S,40,f32"));
  int shape = g->add_node("shape", std::make_shared<ops::ShapeOf>(), {x});
  Outlet idx = g->add_const("idx", Tensor::scalar<int64_t>(1));
  int gather = g->add_node("gather", std::make_shared<ops::Gather>(0), {{shape, 0}, idx});
  Outlet axes = g->add_const("axes", i64s({0}));
  int unsq = g->add_node("unsq", std::make_shared<ops::Unsqueeze>(), {{gather, 0}, axes});
  Outlet minus_one_40 = g->add_const("tail", i64s({-1, 40}));
  int concat = g->add_node("concat", std::make_shared<ops::Concat>(0), {{unsq, 0}, minus_one_40});
  int reshape = g->add_node("reshape", std::make_shared<ops::Reshape>(), {x, {concat, 0}});
  g->set_outputs({{reshape, 0}}, {"y"});
  g->analyse();

  const Fact& s = g->fact({shape, 0});
  ASSERT_TRUE(s.dims_value.has_value());
  EXPECT_EQ(dims_to_string(*s.dims_value), "1,S,40");
  EXPECT_EQ(s.to_string(), "3,i64");
  EXPECT_EQ(g->fact({gather, 0}).to_string(), "i64");
  EXPECT_EQ(dims_to_string(*g->fact({gather, 0}).dims_value), "S");
  EXPECT_EQ(dims_to_string(*g->fact({unsq, 0}).dims_value), "S");
  EXPECT_EQ(dims_to_string(*g->fact({concat, 0}).dims_value), "S,-1,40");
  // Reshape [S, -1, 40] of 1,S,40: the -1 is 1 once S cancels out.
  EXPECT_EQ(g->fact({reshape, 0}).to_string(), "S,1,40,f32");

  Tensor input(DatumType::F32, {1, 7, 40});
  auto out = run_graph(g, {input});
  EXPECT_EQ(out[0].shape(), (Shape{7, 1, 40}));
  EXPECT_TRUE(out[0].shares_storage_with(input));
}

TEST(ShapeChain, ReshapeInfersSymbolicDim) {
  auto g = std::make_shared<Graph>();
  Outlet x = g->add_source("x", Fact::parse("1,S,40,f32"));
  int shape = g->add_node("shape", std::make_shared<ops::ShapeOf>(), {x});
  Outlet idx = g->add_const("idx", i64s({1}));
  int gather = g->add_node("gather", std::make_shared<ops::Gather>(0), {{shape, 0}, idx});
  Outlet forty = g->add_const("forty", i64s({40}));
  int concat = g->add_node("concat", std::make_shared<ops::Concat>(0), {{gather, 0}, forty});
  int reshape = g->add_node("reshape", std::make_shared<ops::Reshape>(), {x, {concat, 0}});
  Outlet m1 = g->add_const("m1", i64s({-1, 40}));
  int reshape2 = g->add_node("reshape2", std::make_shared<ops::Reshape>(), {x, m1});
  g->analyse();
  EXPECT_EQ(g->fact({reshape, 0}).to_string(), "S,40,f32");
  EXPECT_EQ(g->fact({reshape2, 0}).to_string(), "S,40,f32");
}

TEST(ShapeChain, SliceAndSqueezeKeepDims) {
  auto g = std::make_shared<Graph>();
  Outlet x = g->add_source("x", Fact::parse("B,S,40,f32"));
  int shape = g->add_node("shape", std::make_shared<ops::ShapeOf>(), {x});
  Outlet starts = g->add_const("starts", i64s({1}));
  Outlet ends = g->add_const("ends", i64s({2}));
  int slice = g->add_node("slice", std::make_shared<ops::Slice>(), {{shape, 0}, starts, ends});
  Outlet axes = g->add_const("axes", i64s({0}));
  int squeeze = g->add_node("squeeze", std::make_shared<ops::Squeeze>(), {{slice, 0}, axes});
  int shape_tail = g->add_node("tail", std::make_shared<ops::ShapeOf>(-2), {x});
  g->analyse();
  EXPECT_EQ(g->fact({slice, 0}).to_string(), "1,i64");
  EXPECT_EQ(dims_to_string(*g->fact({slice, 0}).dims_value), "S");
  EXPECT_EQ(g->fact({squeeze, 0}).to_string(), "i64");
  EXPECT_EQ(dims_to_string(*g->fact({squeeze, 0}).dims_value), "S");
  EXPECT_EQ(dims_to_string(*g->fact({shape_tail, 0}).dims_value), "S,40");
}

TEST(ShapeChain, ConcreteShapeIsConstant) {
  auto g = std::make_shared<Graph>();
  Outlet x = g->add_source("x", Fact::parse("2,3,f32"));
  int shape = g->add_node("shape", std::make_shared<ops::ShapeOf>(), {x});
  int size = g->add_node("size", std::make_shared<ops::Size>(), {x});
  g->analyse();
  ASSERT_TRUE(g->fact({shape, 0}).value);
  EXPECT_TRUE(g->fact({shape, 0}).value->equals(i64s({2, 3})));
  EXPECT_EQ(g->fact({size, 0}).to_string(), "i64=6");
}
