// Each translated TF op on a small GraphDef written here, against values worked out by hand.
#include <gtest/gtest.h>

#include "base/error.h"
#include "tests/io/tf/tf_test_util.h"

using namespace kiln;
using namespace kiln::tf_test;

namespace {

Tensor f32(Shape s, std::vector<float> v) {
  return Tensor::from_vector<float>(std::move(s), v);
}

// Runs one output of g and returns it.
Tensor eval(const TfGraph& g, const std::string& output, const std::vector<Tensor>& inputs = {}) {
  return run_outputs(g, {output}, inputs).at(0);
}

}  // namespace

TEST(TfOps, MatMulTransposes) {
  TfGraph g;
  g.f32("a", {2, 3}, {1, 2, 3, 4, 5, 6});
  g.f32("b", {2, 3}, {1, 0, 1, 0, 1, 0});
  attr_b(g.node("mm", "MatMul", {"a", "b"}), "transpose_b", true);
  Tensor y = eval(g, "mm");
  EXPECT_EQ(y.shape(), (Shape{2, 2}));
  EXPECT_EQ(floats(y), (std::vector<float>{4, 2, 10, 5}));

  TfGraph h;
  h.f32("a", {1, 2, 2}, {1, 2, 3, 4});
  h.f32("b", {1, 2, 2}, {2, 0, 0, 2});
  attr_b(h.node("bmm", "BatchMatMulV2", {"a", "b"}), "adj_x", true);
  EXPECT_EQ(floats(eval(h, "bmm")), (std::vector<float>{2, 6, 4, 8}));
}

TEST(TfOps, BiasAddBothLayouts) {
  TfGraph g;
  g.f32("x", {1, 2, 1, 2}, {1, 2, 3, 4});
  g.f32("b", {2}, {10, 20});
  g.node("nhwc", "BiasAdd", {"x", "b"});
  attr_s(g.node("nchw", "BiasAdd", {"x", "b"}), "data_format", "NCHW");
  EXPECT_EQ(floats(eval(g, "nhwc")), (std::vector<float>{11, 22, 13, 24}));
  EXPECT_EQ(floats(eval(g, "nchw")), (std::vector<float>{11, 12, 23, 24}));
}

TEST(TfOps, Conv2DSameNhwc) {
  TfGraph g;
  g.f32("x", {1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  g.f32("w", {2, 2, 1, 1}, {1, 1, 1, 1});
  auto& c = g.node("conv", "Conv2D", {"x", "w"});
  attr_s(c, "padding", "SAME");
  attr_ints(c, "strides", {1, 1, 1, 1});
  Tensor y = eval(g, "conv");
  EXPECT_EQ(y.shape(), (Shape{1, 3, 3, 1}));
  // TF puts the odd padding after: each output sums its 2x2 window to the bottom right.
  EXPECT_EQ(floats(y), (std::vector<float>{12, 16, 9, 24, 28, 15, 15, 17, 9}));
}

TEST(TfOps, Conv2DValidChannelsAndNchw) {
  TfGraph g;
  g.f32("x", {1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  g.f32("w", {1, 1, 2, 2}, {1, 0, 1, 1});  // HWIO: out0 = in0 + in1, out1 = in1
  auto& c = g.node("conv", "Conv2D", {"x", "w"});
  attr_s(c, "padding", "VALID");
  attr_ints(c, "strides", {1, 1, 1, 1});
  EXPECT_EQ(floats(eval(g, "conv")), (std::vector<float>{3, 2, 7, 4, 11, 6, 15, 8}));
  // The same data as NCHW [1, 2, 2, 2]: channel 0 = 1..4, channel 1 = 5..8.
  auto& n = g.node("conv_nchw", "Conv2D", {"x", "w"});
  attr_s(n, "padding", "VALID");
  attr_s(n, "data_format", "NCHW");
  attr_ints(n, "strides", {1, 1, 1, 1});
  EXPECT_EQ(floats(eval(g, "conv_nchw")), (std::vector<float>{6, 8, 10, 12, 5, 6, 7, 8}));
}

TEST(TfOps, DepthwiseConvWithMultiplier) {
  TfGraph g;
  g.f32("x", {1, 1, 2, 2}, {1, 2, 3, 4});
  g.f32("w", {1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});  // [H, W, C, M]
  auto& c = g.node("dw", "DepthwiseConv2dNative", {"x", "w"});
  attr_s(c, "padding", "VALID");
  attr_ints(c, "strides", {1, 1, 1, 1});
  Tensor y = eval(g, "dw");
  EXPECT_EQ(y.shape(), (Shape{1, 1, 1, 4}));
  EXPECT_EQ(floats(y), (std::vector<float>{16, 20, 34, 40}));  // channel c * M + m
}

TEST(TfOps, Pools) {
  TfGraph g;
  g.f32("x", {1, 2, 2, 1}, {1, 2, 3, 4});
  auto& a = g.node("avg", "AvgPool", {"x"});
  attr_s(a, "padding", "SAME");
  attr_ints(a, "ksize", {1, 2, 2, 1});
  attr_ints(a, "strides", {1, 1, 1, 1});
  auto& m = g.node("max", "MaxPool", {"x"});
  attr_s(m, "padding", "VALID");
  attr_ints(m, "ksize", {1, 2, 2, 1});
  attr_ints(m, "strides", {1, 2, 2, 1});
  EXPECT_EQ(floats(eval(g, "avg")), (std::vector<float>{2.5, 3, 3.5, 4}));  // padding not counted
  EXPECT_EQ(floats(eval(g, "max")), (std::vector<float>{4}));
}

TEST(TfOps, FusedBatchNormInference) {
  TfGraph g;
  g.f32("x", {1, 1, 1, 2}, {3, 2});
  g.f32("scale", {2}, {4, 3});
  g.f32("offset", {2}, {0.5, -1});
  g.f32("mean", {2}, {1, 1});
  g.f32("var", {2}, {3, 8});
  auto& bn = g.node("bn", "FusedBatchNormV3", {"x", "scale", "offset", "mean", "var"});
  attr_f(bn, "epsilon", 1.0f);
  attr_b(bn, "is_training", false);
  // k = scale / sqrt(var + eps) = [2, 1]; y = (x - mean) * k + offset
  EXPECT_EQ(floats(eval(g, "bn")), (std::vector<float>{4.5, 0}));
  attr_b(*g.def.mutable_node(5), "is_training", true);
  EXPECT_THROW(eval(g, "bn"), Error);
}

TEST(TfOps, ElementWise) {
  TfGraph g;
  g.f32("x", {3}, {-1, 3, 7});
  g.node("relu6", "Relu6", {"x"});
  g.f32("four", {}, {4});
  g.node("rsqrt", "Rsqrt", {"four"});
  g.node("square", "Square", {"x"});
  g.f32("y", {3}, {1, 5, 2});
  g.node("sqdiff", "SquaredDifference", {"x", "y"});
  g.node("max", "Maximum", {"x", "y"});
  g.node("min", "Minimum", {"x", "y"});
  g.node("neq", "NotEqual", {"x", "y"});
  g.node("ge", "GreaterEqual", {"x", "y"});
  attr_f(g.node("leaky", "LeakyRelu", {"x"}), "alpha", 0.5f);
  g.node("sub", "Sub", {"x", "y"});
  g.node("div", "RealDiv", {"x", "y"});
  g.node("addn", "AddN", {"x", "y", "x"});
  EXPECT_EQ(floats(eval(g, "relu6")), (std::vector<float>{0, 3, 6}));
  EXPECT_EQ(floats(eval(g, "rsqrt")), (std::vector<float>{0.5}));
  EXPECT_EQ(floats(eval(g, "square")), (std::vector<float>{1, 9, 49}));
  EXPECT_EQ(floats(eval(g, "sqdiff")), (std::vector<float>{4, 4, 25}));
  EXPECT_EQ(floats(eval(g, "max")), (std::vector<float>{1, 5, 7}));
  EXPECT_EQ(floats(eval(g, "min")), (std::vector<float>{-1, 3, 2}));
  EXPECT_EQ(ints(eval(g, "neq")), (std::vector<int64_t>{1, 1, 1}));
  EXPECT_EQ(ints(eval(g, "ge")), (std::vector<int64_t>{0, 0, 1}));
  EXPECT_EQ(floats(eval(g, "leaky")), (std::vector<float>{-0.5, 3, 7}));
  EXPECT_EQ(floats(eval(g, "sub")), (std::vector<float>{-2, -2, 5}));
  EXPECT_EQ(floats(eval(g, "div")), (std::vector<float>{-1, 0.6f, 3.5}));
  EXPECT_EQ(floats(eval(g, "addn")), (std::vector<float>{-1, 11, 16}));
}

TEST(TfOps, IntegerDivisionAndModulo) {
  TfGraph g;
  g.i32("a", {4}, {7, -7, 7, -7});
  g.i32("b", {4}, {2, 2, -2, -2});
  g.node("floordiv", "FloorDiv", {"a", "b"});
  g.node("floormod", "FloorMod", {"a", "b"});
  g.node("div", "Div", {"a", "b"});
  EXPECT_EQ(ints(eval(g, "floordiv")), (std::vector<int64_t>{3, -4, -4, 3}));
  EXPECT_EQ(ints(eval(g, "floormod")), (std::vector<int64_t>{1, 1, -1, -1}));
  EXPECT_EQ(ints(eval(g, "div")), (std::vector<int64_t>{3, -3, -3, 3}));
}

TEST(TfOps, SelectRowsAndCast) {
  TfGraph g;
  g.constant("c", Tensor::from_vector<bool>({2}, {true, false}));
  g.f32("x", {2, 2}, {1, 2, 3, 4});
  g.f32("y", {2, 2}, {5, 6, 7, 8});
  g.node("select", "Select", {"c", "x", "y"});
  g.f32("r", {2}, {1.7f, -1.7f});
  attr_type(g.node("cast", "Cast", {"r"}), "DstT", DatumType::I32);
  EXPECT_EQ(floats(eval(g, "select")), (std::vector<float>{1, 2, 7, 8}));
  Tensor c = eval(g, "cast");
  EXPECT_EQ(c.dtype(), DatumType::I32);
  EXPECT_EQ(ints(c), (std::vector<int64_t>{1, -1}));
}

TEST(TfOps, ReshapeSqueezeExpandTranspose) {
  TfGraph g;
  g.f32("x", {2, 3}, {1, 2, 3, 4, 5, 6});
  g.i32("shape", {2}, {3, -1});
  g.node("reshape", "Reshape", {"x", "shape"});
  g.i32("perm", {2}, {1, 0});
  g.node("transpose", "Transpose", {"x", "perm"});
  g.f32("z", {1, 2, 1}, {1, 2});
  attr_ints(g.node("squeeze", "Squeeze", {"z"}), "squeeze_dims", {0});
  g.node("squeeze_all", "Squeeze", {"z"});
  g.i32("axis", {}, {-1});
  g.node("expand", "ExpandDims", {"x", "axis"});
  EXPECT_EQ(eval(g, "reshape").shape(), (Shape{3, 2}));
  EXPECT_EQ(floats(eval(g, "transpose")), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(eval(g, "squeeze").shape(), (Shape{2, 1}));
  EXPECT_EQ(eval(g, "squeeze_all").shape(), (Shape{2}));
  EXPECT_EQ(eval(g, "expand").shape(), (Shape{2, 3, 1}));
}

TEST(TfOps, ConcatPackUnpack) {
  TfGraph g;
  g.f32("a", {2, 1}, {1, 2});
  g.f32("b", {2, 1}, {3, 4});
  g.i32("axis", {}, {1});
  g.node("concat", "ConcatV2", {"a", "b", "axis"});
  g.f32("p", {2}, {1, 2});
  g.f32("q", {2}, {3, 4});
  attr_i(g.node("pack", "Pack", {"p", "q"}), "axis", 1);
  g.f32("m", {2, 2}, {1, 2, 3, 4});
  auto& u = g.node("unpack", "Unpack", {"m"});
  attr_i(u, "num", 2);
  g.node("second", "Identity", {"unpack:1", "^unpack"});
  EXPECT_EQ(floats(eval(g, "concat")), (std::vector<float>{1, 3, 2, 4}));
  Tensor p = eval(g, "pack");
  EXPECT_EQ(p.shape(), (Shape{2, 2}));
  EXPECT_EQ(floats(p), (std::vector<float>{1, 3, 2, 4}));
  Tensor s = eval(g, "second");
  EXPECT_EQ(s.shape(), (Shape{2}));
  EXPECT_EQ(floats(s), (std::vector<float>{3, 4}));
}

TEST(TfOps, SliceAndStridedSlice) {
  TfGraph g;
  g.f32("x", {2, 3}, {1, 2, 3, 4, 5, 6});
  g.i32("begin", {2}, {0, 1});
  g.i32("size", {2}, {-1, 2});
  g.node("slice", "Slice", {"x", "begin", "size"});
  std::vector<float> v(24);
  for (int i = 0; i < 24; i++) v[i] = static_cast<float>(i);
  g.f32("t", {2, 3, 4}, v);
  // t[1]
  g.i32("b1", {3}, {1, 0, 0});
  g.i32("e1", {3}, {2, 0, 0});
  g.i32("s1", {3}, {1, 1, 1});
  auto& ss1 = g.node("ss1", "StridedSlice", {"t", "b1", "e1", "s1"});
  attr_i(ss1, "begin_mask", 6);
  attr_i(ss1, "end_mask", 6);
  attr_i(ss1, "shrink_axis_mask", 1);
  // t[..., ::-2]
  g.i32("b2", {2}, {0, 0});
  g.i32("e2", {2}, {0, 0});
  g.i32("s2", {2}, {1, -2});
  auto& ss2 = g.node("ss2", "StridedSlice", {"t", "b2", "e2", "s2"});
  attr_i(ss2, "ellipsis_mask", 1);
  attr_i(ss2, "begin_mask", 2);
  attr_i(ss2, "end_mask", 2);
  // t[:, newaxis, 1:3, -1]
  g.i32("b3", {4}, {0, 0, 1, -1});
  g.i32("e3", {4}, {0, 0, 3, 0});
  g.i32("s3", {4}, {1, 1, 1, 1});
  auto& ss3 = g.node("ss3", "StridedSlice", {"t", "b3", "e3", "s3"});
  attr_i(ss3, "begin_mask", 1);
  attr_i(ss3, "end_mask", 1);
  attr_i(ss3, "new_axis_mask", 2);
  attr_i(ss3, "shrink_axis_mask", 8);

  EXPECT_EQ(floats(eval(g, "slice")), (std::vector<float>{2, 3, 5, 6}));
  Tensor y1 = eval(g, "ss1");
  EXPECT_EQ(y1.shape(), (Shape{3, 4}));
  EXPECT_EQ(floats(y1)[0], 12);
  EXPECT_EQ(floats(y1)[11], 23);
  Tensor y2 = eval(g, "ss2");
  EXPECT_EQ(y2.shape(), (Shape{2, 3, 2}));
  auto v2 = floats(y2);
  EXPECT_EQ(std::vector<float>(v2.begin(), v2.begin() + 4), (std::vector<float>{3, 1, 7, 5}));
  Tensor y3 = eval(g, "ss3");
  EXPECT_EQ(y3.shape(), (Shape{2, 1, 2}));
  EXPECT_EQ(floats(y3), (std::vector<float>{7, 11, 19, 23}));
}

TEST(TfOps, Gathers) {
  TfGraph g;
  g.f32("v", {3}, {10, 20, 30});
  g.i32("idx", {2}, {2, 0});
  g.node("gather", "Gather", {"v", "idx"});
  g.f32("m", {2, 3}, {1, 2, 3, 4, 5, 6});
  g.i32("one", {1}, {2});
  g.i32("axis", {}, {1});
  g.node("gather_v2", "GatherV2", {"m", "one", "axis"});
  g.f32("sq", {2, 2}, {1, 2, 3, 4});
  g.i32("nd", {2, 2}, {1, 0, 0, 1});
  g.node("gather_nd", "GatherNd", {"sq", "nd"});
  EXPECT_EQ(floats(eval(g, "gather")), (std::vector<float>{30, 10}));
  Tensor y = eval(g, "gather_v2");
  EXPECT_EQ(y.shape(), (Shape{2, 1}));
  EXPECT_EQ(floats(y), (std::vector<float>{3, 6}));
  EXPECT_EQ(floats(eval(g, "gather_nd")), (std::vector<float>{3, 2}));
}

TEST(TfOps, Pads) {
  TfGraph g;
  g.f32("x", {1, 2}, {1, 2});
  g.i32("p", {2, 2}, {1, 0, 0, 1});
  g.node("pad", "Pad", {"x", "p"});
  g.f32("nine", {}, {9});
  g.node("pad_v2", "PadV2", {"x", "p", "nine"});
  g.f32("r", {3}, {1, 2, 3});
  g.i32("rp", {1, 2}, {2, 1});
  attr_s(g.node("mirror", "MirrorPad", {"r", "rp"}), "mode", "REFLECT");
  EXPECT_EQ(floats(eval(g, "pad")), (std::vector<float>{0, 0, 0, 1, 2, 0}));
  EXPECT_EQ(floats(eval(g, "pad_v2")), (std::vector<float>{9, 9, 9, 1, 2, 9}));
  EXPECT_EQ(floats(eval(g, "mirror")), (std::vector<float>{3, 2, 1, 2, 3, 2}));
}

TEST(TfOps, Reductions) {
  TfGraph g;
  g.f32("x", {2, 2}, {1, 2, 3, 4});
  g.i32("ax1", {1}, {1});
  g.i32("ax0", {}, {0});
  attr_b(g.node("sum", "Sum", {"x", "ax1"}), "keep_dims", true);
  g.node("mean", "Mean", {"x", "ax0"});
  g.node("max", "Max", {"x", "ax1"});
  g.node("prod", "Prod", {"x", "ax0"});
  Tensor s = eval(g, "sum");
  EXPECT_EQ(s.shape(), (Shape{2, 1}));
  EXPECT_EQ(floats(s), (std::vector<float>{3, 7}));
  EXPECT_EQ(floats(eval(g, "mean")), (std::vector<float>{2, 3}));
  EXPECT_EQ(floats(eval(g, "max")), (std::vector<float>{2, 4}));
  EXPECT_EQ(floats(eval(g, "prod")), (std::vector<float>{3, 8}));
}

TEST(TfOps, ShapeFillRangeTileSplit) {
  TfGraph g;
  g.placeholder("x", DatumType::F32, {2, 3});
  g.node("shape", "Shape", {"x"});
  g.i32("dims", {2}, {2, 2});
  g.f32("seven", {}, {7});
  g.node("fill", "Fill", {"dims", "seven"});
  g.i32("start", {}, {1});
  g.i32("limit", {}, {7});
  g.i32("delta", {}, {2});
  g.node("range", "Range", {"start", "limit", "delta"});
  g.f32("row", {1, 2}, {1, 2});
  g.i32("mult", {2}, {2, 1});
  g.node("tile", "Tile", {"row", "mult"});
  g.f32("four", {1, 4}, {1, 2, 3, 4});
  g.i32("one", {}, {1});
  attr_i(g.node("split", "Split", {"one", "four"}), "num_split", 2);
  g.f32("three", {3}, {1, 2, 3});
  g.i32("sizes", {2}, {1, -1});
  g.i32("zero", {}, {0});
  attr_i(g.node("splitv", "SplitV", {"three", "sizes", "zero"}), "num_split", 2);
  Tensor xin = f32({2, 3}, {0, 0, 0, 0, 0, 0});
  Tensor s = eval(g, "shape", {xin});
  EXPECT_EQ(s.dtype(), DatumType::I32);
  EXPECT_EQ(ints(s), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(floats(eval(g, "fill")), (std::vector<float>{7, 7, 7, 7}));
  EXPECT_EQ(ints(eval(g, "range")), (std::vector<int64_t>{1, 3, 5}));
  EXPECT_EQ(floats(eval(g, "tile")), (std::vector<float>{1, 2, 1, 2}));
  EXPECT_EQ(floats(eval(g, "split:1")), (std::vector<float>{3, 4}));
  EXPECT_EQ(floats(eval(g, "splitv:1")), (std::vector<float>{2, 3}));
}

TEST(TfOps, ConstEncodings) {
  TfGraph g;
  auto make = [&](const std::string& name, tfproto::DataType dt, std::vector<int64_t> shape) {
    auto& n = g.node(name, "Const");
    auto* t = (*n.mutable_attr())["value"].mutable_tensor();
    t->set_dtype(dt);
    for (auto d : shape) t->mutable_tensor_shape()->add_dim()->set_size(d);
    return t;
  };
  make("splat", tfproto::DT_FLOAT, {2, 2})->add_float_val(5);
  auto* ints_list = make("repeat_last", tfproto::DT_INT32, {3});
  ints_list->add_int_val(1);
  ints_list->add_int_val(2);
  make("half", tfproto::DT_HALF, {2})->add_half_val(0x3C00);  // 1.0
  make("i64", tfproto::DT_INT64, {})->add_int64_val(-5);
  make("zeros", tfproto::DT_FLOAT, {3});
  make("bools", tfproto::DT_BOOL, {2})->add_bool_val(true);
  make("str", tfproto::DT_STRING, {})->add_string_val("abc");
  EXPECT_EQ(floats(eval(g, "splat")), (std::vector<float>{5, 5, 5, 5}));
  EXPECT_EQ(ints(eval(g, "repeat_last")), (std::vector<int64_t>{1, 2, 2}));
  Tensor h = eval(g, "half");
  EXPECT_EQ(h.dtype(), DatumType::F16);
  EXPECT_EQ(floats(h), (std::vector<float>{1, 1}));
  EXPECT_EQ(ints(eval(g, "i64")), (std::vector<int64_t>{-5}));
  EXPECT_EQ(floats(eval(g, "zeros")), (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(ints(eval(g, "bools")), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(eval(g, "str").values<std::string>()[0], "abc");
  // tensor_content of the wrong size
  auto* bad = make("bad", tfproto::DT_FLOAT, {2});
  bad->set_tensor_content("abc");
  EXPECT_THROW(eval(g, "bad"), Error);
}

TEST(TfOps, ArgMaxClipLikeBroadcast) {
  TfGraph g;
  g.f32("x", {2, 3}, {1, 9, 3, 7, 2, 8});
  g.i32("one", {}, {1});
  g.node("argmax", "ArgMax", {"x", "one"});
  attr_type(g.node("argmin", "ArgMin", {"x", "one"}), "output_type", DatumType::I32);
  g.f32("lo", {}, {2});
  g.f32("hi", {3}, {5, 8, 8});
  g.node("clip", "ClipByValue", {"x", "lo", "hi"});
  g.node("zeros", "ZerosLike", {"x"});
  g.node("ones", "OnesLike", {"one"});
  g.i32("shape", {2}, {2, 3});
  g.f32("row", {3}, {1, 2, 3});
  g.node("bcast", "BroadcastTo", {"row", "shape"});
  EXPECT_EQ(ints(eval(g, "argmax")), (std::vector<int64_t>{1, 2}));
  Tensor amin = eval(g, "argmin");
  EXPECT_EQ(amin.dtype(), DatumType::I32);
  EXPECT_EQ(ints(amin), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(floats(eval(g, "clip")), (std::vector<float>{2, 8, 3, 5, 2, 8}));
  EXPECT_EQ(floats(eval(g, "zeros")), (std::vector<float>(6, 0.0f)));
  Tensor ones = eval(g, "ones");
  EXPECT_EQ(ones.dtype(), DatumType::I32);
  EXPECT_EQ(ints(ones), (std::vector<int64_t>{1}));
  EXPECT_EQ(floats(eval(g, "bcast")), (std::vector<float>{1, 2, 3, 1, 2, 3}));
}

TEST(TfOps, Resizes) {
  TfGraph g;
  g.f32("x", {1, 2, 2, 1}, {0, 1, 2, 3});
  g.i32("three", {2}, {3, 3});
  g.i32("four", {2}, {4, 4});
  attr_b(g.node("bilinear_ac", "ResizeBilinear", {"x", "three"}), "align_corners", true);
  g.node("bilinear", "ResizeBilinear", {"x", "four"});
  g.node("nearest", "ResizeNearestNeighbor", {"x", "four"});
  attr_b(g.node("nearest_hp", "ResizeNearestNeighbor", {"x", "three"}), "half_pixel_centers", true);
  EXPECT_EQ(floats(eval(g, "bilinear_ac")), (std::vector<float>{0, 0.5, 1, 1, 1.5, 2, 2, 2.5, 3}));
  EXPECT_EQ(floats(eval(g, "bilinear")),
            (std::vector<float>{0, 0.5, 1, 1, 1, 1.5, 2, 2, 2, 2.5, 3, 3, 2, 2.5, 3, 3}));
  EXPECT_EQ(floats(eval(g, "nearest")),
            (std::vector<float>{0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3}));
  // floor((out + 0.5) * 2/3): 0, 1, 1
  EXPECT_EQ(floats(eval(g, "nearest_hp")), (std::vector<float>{0, 1, 1, 2, 3, 3, 2, 3, 3}));
}

TEST(TfOps, DepthAndSpace) {
  TfGraph g;
  g.f32("x", {1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  attr_i(g.node("d2s", "DepthToSpace", {"x"}), "block_size", 2);
  attr_i(g.node("s2d", "SpaceToDepth", {"d2s"}), "block_size", 2);
  Tensor y = eval(g, "d2s");
  EXPECT_EQ(y.shape(), (Shape{1, 2, 4, 1}));
  EXPECT_EQ(floats(y), (std::vector<float>{1, 2, 5, 6, 3, 4, 7, 8}));
  EXPECT_EQ(floats(eval(g, "s2d")), (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST(TfOps, SpaceToBatchAndBack) {
  TfGraph g;
  std::vector<float> v(16);
  for (int i = 0; i < 16; i++) v[i] = static_cast<float>(i);
  g.f32("x", {1, 4, 4, 1}, v);
  g.i32("block", {2}, {2, 2});
  g.i32("zero", {2, 2}, {0, 0, 0, 0});
  g.node("s2b", "SpaceToBatchND", {"x", "block", "zero"});
  g.node("b2s", "BatchToSpaceND", {"s2b", "block", "zero"});
  g.i32("crops", {2, 2}, {0, 1, 1, 0});
  g.node("b2s_crop", "BatchToSpaceND", {"s2b", "block", "crops"});
  g.f32("small", {1, 2, 2, 1}, {1, 2, 3, 4});
  g.i32("ones", {2, 2}, {1, 1, 1, 1});
  g.node("s2b_pad", "SpaceToBatchND", {"small", "block", "ones"});
  Tensor s = eval(g, "s2b");
  EXPECT_EQ(s.shape(), (Shape{4, 2, 2, 1}));
  EXPECT_EQ(floats(s), (std::vector<float>{0, 2, 8, 10, 1, 3, 9, 11, 4, 6, 12, 14, 5, 7, 13, 15}));
  EXPECT_EQ(floats(eval(g, "b2s")), v);
  Tensor c = eval(g, "b2s_crop");
  EXPECT_EQ(c.shape(), (Shape{1, 3, 3, 1}));
  EXPECT_EQ(floats(c), (std::vector<float>{1, 2, 3, 5, 6, 7, 9, 10, 11}));
  EXPECT_EQ(floats(eval(g, "s2b_pad")),
            (std::vector<float>{0, 0, 0, 4, 0, 0, 3, 0, 0, 2, 0, 0, 1, 0, 0, 0}));
}
