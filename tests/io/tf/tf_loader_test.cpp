// The GraphDef loader: inputs and outputs, cutting, errors, and TF1 while loops.
#include "io/tf/tf_loader.h"

#include <gtest/gtest.h>

#include "base/error.h"
#include "tests/io/tf/tf_test_util.h"

using namespace kiln;
using namespace kiln::tf_test;

namespace {

Tensor f32(Shape s, std::vector<float> v) {
  return Tensor::from_vector<float>(std::move(s), v);
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.chain();
  }
  return "";
}

// while i < n: acc *= 2; i += 1   (i from 0, acc from 1, n fed)
TfGraph doubling_loop() {
  TfGraph g;
  g.i32("i0", {}, {0});
  g.f32("acc0", {}, {1});
  g.placeholder("n", DatumType::I32, {});
  auto enter = [&](const std::string& name, const std::string& in, bool constant) {
    auto& e = g.node(name, "Enter", {in});
    attr_s(e, "frame_name", "loop/while_context");
    attr_b(e, "is_constant", constant);
  };
  enter("loop/Enter", "i0", false);
  enter("loop/Enter_1", "acc0", false);
  enter("loop/n", "n", true);
  g.node("loop/Merge", "Merge", {"loop/Enter", "loop/NextIteration"});
  g.node("loop/Merge_1", "Merge", {"loop/Enter_1", "loop/NextIteration_1"});
  g.node("loop/Less", "Less", {"loop/Merge", "loop/n"});
  g.node("loop/LoopCond", "LoopCond", {"loop/Less"});
  g.node("loop/Switch", "Switch", {"loop/Merge", "loop/LoopCond"});
  g.node("loop/Switch_1", "Switch", {"loop/Merge_1", "loop/LoopCond"});
  g.node("loop/Identity", "Identity", {"loop/Switch:1"});
  g.node("loop/Identity_1", "Identity", {"loop/Switch_1:1"});
  g.f32("loop/two", {}, {2}).add_input("^loop/Identity");
  g.i32("loop/one", {}, {1}).add_input("^loop/Identity");
  g.node("loop/mul", "Mul", {"loop/Identity_1", "loop/two"});
  g.node("loop/add", "Add", {"loop/Identity", "loop/one"});
  g.node("loop/NextIteration", "NextIteration", {"loop/add"});
  g.node("loop/NextIteration_1", "NextIteration", {"loop/mul"});
  g.node("loop/Exit", "Exit", {"loop/Switch"});
  g.node("loop/Exit_1", "Exit", {"loop/Switch_1"});
  return g;
}

}  // namespace

TEST(TfLoader, WhileLoopBecomesOneLoop) {
  TfGraph g = doubling_loop();
  tf_io::LoadOptions o;
  o.output_nodes = {"loop/Exit_1", "loop/Exit"};
  auto graph = tf_io::load_tf_graph(g.def, o);
  int loops = 0;
  for (const auto& n : graph->nodes()) loops += n.op->name() == "Loop";
  EXPECT_EQ(loops, 1);
  for (int n : {5, 3, 0}) {
    auto outs = run_graph(g.def, {Tensor::scalar<int32_t>(n)}, o);
    EXPECT_EQ(floats(outs[0]), (std::vector<float>{static_cast<float>(1 << n)})) << n;
    EXPECT_EQ(ints(outs[1]), (std::vector<int64_t>{n})) << n;
  }
}

TEST(TfLoader, CountedLoopGetsItsTripCount) {
  TfGraph g = doubling_loop();
  // n becomes a constant: `i = 0; while i < 6` runs exactly 6 times.
  auto* n = g.def.mutable_node(2);
  n->Clear();
  n->set_name("n");
  n->set_op("Const");
  *(*n->mutable_attr())["value"].mutable_tensor() = tf_io::tensor_to_tf(Tensor::scalar<int32_t>(6));
  tf_io::LoadOptions o;
  o.output_nodes = {"loop/Exit_1"};
  auto graph = tf_io::load_tf_graph(g.def, o);
  int64_t trips = -1;
  for (const auto& node : graph->nodes())
    if (node.op->name() == "Loop") {
      ASSERT_TRUE(node.inputs[0].present());
      graph->analyse();
      trips = graph->fact(node.inputs[0]).value->value_as_i64(0);
    }
  EXPECT_EQ(trips, 6);
  EXPECT_EQ(floats(run_graph(g.def, {}, o)[0]), (std::vector<float>{64}));
}

TEST(TfLoader, TensorArraysInsideWhileLoop) {
  // Scatter x's rows into a TensorArray, read row i in the loop, accumulate, write the running
  // sum to a second TensorArray, gather it after the loop.
  for (int64_t rows : {4, -1}) {
    TfGraph g;
    g.placeholder("x", DatumType::F32, {rows, 2});
    g.i32("size", {}, {4});
    g.i32("zero", {}, {0});
    g.i32("one", {}, {1});
    g.node("range", "Range", {"zero", "size", "one"});
    auto& ta_in = g.node("ta_in", "TensorArrayV3", {"size"});
    attr_type(ta_in, "dtype", DatumType::F32);
    (*ta_in.mutable_attr())["element_shape"].mutable_shape()->set_unknown_rank(true);
    g.node("scatter", "TensorArrayScatterV3", {"ta_in", "range", "x", "ta_in:1"});
    auto& ta_out = g.node("ta_out", "TensorArrayV3", {"size"});
    attr_type(ta_out, "dtype", DatumType::F32);
    (*ta_out.mutable_attr())["element_shape"].mutable_shape()->add_dim()->set_size(2);
    g.f32("acc0", {2}, {0, 0});
    auto enter = [&](const std::string& name, const std::string& in, bool constant) {
      auto& e = g.node(name, "Enter", {in});
      attr_s(e, "frame_name", "w");
      attr_b(e, "is_constant", constant);
    };
    enter("w/Enter_i", "zero", false);
    enter("w/Enter_acc", "acc0", false);
    enter("w/Enter_flow", "ta_out:1", false);
    enter("w/ta_in", "ta_in", true);
    enter("w/scatter", "scatter", true);
    enter("w/ta_out", "ta_out", true);
    enter("w/n", "size", true);
    for (const char* v : {"i", "acc", "flow"}) {
      std::string s = v;
      g.node("w/Merge_" + s, "Merge", {"w/Enter_" + s, "w/Next_" + s});
      g.node("w/Switch_" + s, "Switch", {"w/Merge_" + s, "w/LoopCond"});
      g.node("w/Identity_" + s, "Identity", {"w/Switch_" + s + ":1"});
    }
    g.node("w/Less", "Less", {"w/Merge_i", "w/n"});
    g.node("w/LoopCond", "LoopCond", {"w/Less"});
    g.node("w/read", "TensorArrayReadV3", {"w/ta_in", "w/Identity_i", "w/scatter"});
    g.node("w/acc", "Add", {"w/Identity_acc", "w/read"});
    g.node("w/write", "TensorArrayWriteV3",
           {"w/ta_out", "w/Identity_i", "w/acc", "w/Identity_flow"});
    g.i32("w/one", {}, {1}).add_input("^w/Identity_i");
    g.node("w/i", "Add", {"w/Identity_i", "w/one"});
    g.node("w/Next_i", "NextIteration", {"w/i"});
    g.node("w/Next_acc", "NextIteration", {"w/acc"});
    g.node("w/Next_flow", "NextIteration", {"w/write"});
    g.node("w/Exit_acc", "Exit", {"w/Switch_acc"});
    g.node("w/Exit_flow", "Exit", {"w/Switch_flow"});
    g.node("gather", "TensorArrayGatherV3", {"ta_out", "range", "w/Exit_flow"});
    g.node("count", "TensorArraySizeV3", {"ta_out", "w/Exit_flow"});
    tf_io::LoadOptions o;
    o.output_nodes = {"w/Exit_acc", "gather", "count"};
    auto outs = run_graph(g.def, {f32({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8})}, o);
    EXPECT_EQ(floats(outs[0]), (std::vector<float>{16, 20})) << rows;
    EXPECT_EQ(outs[1].shape(), (Shape{4, 2}));
    EXPECT_EQ(floats(outs[1]), (std::vector<float>{1, 2, 4, 6, 9, 12, 16, 20})) << rows;
    EXPECT_EQ(ints(outs[2]), (std::vector<int64_t>{4}));
  }
}

TEST(TfLoader, DefaultOutputsAndInputs) {
  TfGraph g;
  g.placeholder("b", DatumType::F32, {2});
  g.placeholder("a", DatumType::F32, {-1});
  g.placeholder("unused", DatumType::F32, {1});
  g.node("sum", "Add", {"a", "b"});
  g.node("noop", "NoOp", {"^sum"});
  auto graph = tf_io::load_tf_graph(g.def);
  ASSERT_EQ(graph->outputs().size(), 1u);
  EXPECT_EQ(graph->output_names()[0], "sum");
  ASSERT_EQ(graph->inputs().size(), 2u);  // in GraphDef order, the unused one left out
  EXPECT_EQ(graph->input_name(0), "b");
  EXPECT_EQ(graph->input_name(1), "a");
  EXPECT_FALSE(graph->fact(graph->inputs()[1]).shape[0].is_int());  // -1: a symbol
}

TEST(TfLoader, CutAtInputNode) {
  TfGraph g;
  g.placeholder("x", DatumType::F32, {2});
  g.node("e", "Exp", {"x"});
  g.node("neg", "Neg", {"e"});
  tf_io::LoadOptions o;
  o.input_nodes = {"e"};
  o.output_nodes = {"neg"};
  auto graph = tf_io::load_tf_graph(g.def, o);
  ASSERT_EQ(graph->inputs().size(), 1u);
  EXPECT_EQ(graph->input_name(0), "e");
  EXPECT_EQ(graph->fact(graph->inputs()[0]).to_string(), "2,f32");  // from the uncut graph
  auto outs = run_graph(g.def, {f32({2}, {1, -2})}, o);
  EXPECT_EQ(floats(outs[0]), (std::vector<float>{-1, 2}));
}

TEST(TfLoader, ErrorsAreClear) {
  TfGraph g;
  g.placeholder("x", DatumType::F32, {2});
  g.node("a", "FancyOp", {"x"});
  g.node("b", "OtherOp", {"a"});
  g.node("c", "FancyOp", {"b"});
  std::string e = error_of([&] { tf_io::load_tf_graph(g.def); });
  EXPECT_NE(e.find("unsupported TensorFlow ops (2)"), std::string::npos) << e;
  EXPECT_NE(e.find("FancyOp (2 nodes"), std::string::npos) << e;
  EXPECT_NE(e.find("OtherOp (1 node"), std::string::npos) << e;

  TfGraph missing;
  missing.node("y", "Neg", {"nowhere"});
  e = error_of([&] { tf_io::load_tf_graph(missing.def); });
  EXPECT_NE(e.find("'nowhere'"), std::string::npos) << e;

  TfGraph bad_attr;
  bad_attr.f32("x", {1, 1, 1, 1}, {1});
  bad_attr.f32("w", {1, 1, 1, 1}, {1});
  attr_s(bad_attr.node("conv", "Conv2D", {"x", "w"}), "padding", "WEIRD");
  e = error_of([&] { tf_io::load_tf_graph(bad_attr.def); });
  EXPECT_NE(e.find("translating node 'conv' (Conv2D)"), std::string::npos) << e;
  EXPECT_NE(e.find("padding 'WEIRD'"), std::string::npos) << e;

  tfproto::GraphDef parsed;
  e = error_of([&] { tf_io::parse_graph_def(std::string("\x0a\xff\xff", 3), parsed); });
  EXPECT_NE(e.find("not a valid TensorFlow GraphDef"), std::string::npos) << e;
  e = error_of([&] { tf_io::load_tf_file("/nonexistent/model.pb"); });
  EXPECT_NE(e.find("does not exist"), std::string::npos) << e;

  TfGraph dup;
  dup.f32("x", {1}, {1});
  dup.f32("x", {1}, {2});
  e = error_of([&] { tf_io::load_tf_graph(dup.def); });
  EXPECT_NE(e.find("two nodes are named 'x'"), std::string::npos) << e;
}

TEST(TfLoader, CondWithConstantPredicate) {
  for (bool flag : {false, true}) {
    TfGraph g;
    g.placeholder("x", DatumType::F32, {2});
    g.constant("flag", Tensor::scalar<bool>(flag));
    g.node("is_training", "PlaceholderWithDefault", {"flag"});
    g.node("cond/Switch", "Switch", {"x", "is_training"});
    g.node("cond/neg", "Neg", {"cond/Switch"});                        // false branch
    g.node("cond/double", "Add", {"cond/Switch:1", "cond/Switch:1"});  // true branch
    g.node("cond/Merge", "Merge", {"cond/neg", "cond/double"});
    g.node("y", "Abs", {"cond/Merge"});
    auto graph = tf_io::load_tf_graph(g.def);
    for (const auto& n : graph->nodes()) EXPECT_NE(n.name, flag ? "cond/neg" : "cond/double");
    auto outs = run_graph(g.def, {f32({2}, {1, -3})});
    EXPECT_EQ(floats(outs[0]), flag ? (std::vector<float>{2, 6}) : (std::vector<float>{1, 3}));
  }
  TfGraph dynamic;
  dynamic.placeholder("x", DatumType::F32, {2});
  dynamic.placeholder("p", DatumType::Bool, {});
  dynamic.node("s", "Switch", {"x", "p"});
  dynamic.node("m", "Merge", {"s", "s:1"});
  std::string e = error_of([&] { tf_io::load_tf_graph(dynamic.def); });
  EXPECT_NE(e.find("only known at run time"), std::string::npos) << e;
}
