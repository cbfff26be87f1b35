// Strict NNEF lowering (io/nnef/strict_lowering.h): each op with an exact standard-NNEF form is
// written without extensions under --nnef-strict, the text uses the expected standard ops, and
// the NNEF read back computes what the op computes on random inputs (odd sizes included).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "base/error.h"
#include "core/random_tensor.h"
#include "core/state.h"
#include "core/tensor_compare.h"
#include "io/nnef/dat_file.h"
#include "io/nnef/nnef_loader.h"
#include "io/nnef/nnef_writer.h"
#include "ops/elementwise/binary.h"
#include "ops/elementwise/cast.h"
#include "ops/elementwise/unary.h"
#include "ops/image/resize.h"
#include "ops/nn/instance_norm.h"
#include "ops/nn/mvn.h"
#include "ops/recurrent/gru.h"
#include "ops/recurrent/lstm.h"
#include "ops/shape/expand.h"
#include "ops/shape/gather.h"
#include "ops/shape/pad.h"

namespace {

using namespace kiln;

Tensor random_f32(const Shape& shape, uint64_t seed, float lo = -3, float hi = 3) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  Tensor t(DatumType::F32, shape);
  for (float& v : t.values_mut<float>()) v = u(rng);
  return t;
}

Tensor ints(const std::vector<int64_t>& v) {
  Tensor t(DatumType::I64, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); i++) t.values_mut<int64_t>()[i] = v[i];
  return t;
}

struct Case {
  std::shared_ptr<Graph> graph = std::make_shared<Graph>();
  std::vector<Tensor> inputs;
  Outlet input(const std::string& name, Tensor value) {
    inputs.push_back(value);
    return graph->add_source(name, Fact(value.dtype(), value.shape()));
  }
  void outputs(std::vector<Outlet> outs) {
    std::vector<std::string> names;
    for (size_t i = 0; i < outs.size(); i++) names.push_back("y" + std::to_string(i));
    graph->set_outputs(std::move(outs), std::move(names));
    graph->analyse();
  }
};

// With KILN_NNEF_STRICT_DUMP=DIR, each strict archive is also written to DIR/<test>_<n>/graph
// with its inputs and kiln's outputs as .dat files, for the Khronos tools (docs/nnef.md).
void dump_for_khronos(const nnef::WrittenModel& written, const Case& c,
                      const std::vector<Tensor>& outputs) {
  const char* root = std::getenv("KILN_NNEF_STRICT_DUMP");
  if (!root || !*root) return;
  static int counter = 0;
  std::filesystem::path dir =
      std::filesystem::path(root) /
      (std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
       std::to_string(counter++));
  std::filesystem::create_directories(dir / "graph");
  for (const auto& [name, bytes] : written.files)
    std::ofstream(dir / "graph" / name, std::ios::binary) << bytes;
  for (size_t i = 0; i < c.inputs.size(); i++)
    std::ofstream(dir / ("input_" + std::to_string(i) + ".dat"), std::ios::binary)
        << nnef::write_dat(c.inputs[i]);
  for (size_t i = 0; i < outputs.size(); i++)
    std::ofstream(dir / ("output_" + std::to_string(i) + ".dat"), std::ios::binary)
        << nnef::write_dat(outputs[i]);
}

// Writes strictly, checks the text, reads back and compares outputs with the op's own.
void expect_strict_round_trip(Case& c, const std::vector<std::string>& expected_ops,
                              double rtol = 1e-5, double atol = 1e-6) {
  nnef::WriteOptions strict;
  strict.strict = true;
  nnef::WrittenModel written;
  ASSERT_NO_THROW(written = nnef::write_nnef(*c.graph, strict));
  const std::string& text = written.files.at("graph.nnef");
  EXPECT_TRUE(written.extension_ops.empty());
  EXPECT_EQ(text.find("extension"), std::string::npos) << text;
  EXPECT_EQ(text.find("kiln_"), std::string::npos) << text;
  for (const auto& op : expected_ops)
    EXPECT_NE(text.find(op + "("), std::string::npos) << op << " not in\n" << text;
  auto back = nnef::load_nnef_files(written.files, "strict");
  auto want = run_graph(c.graph, c.inputs);
  auto got = run_graph(back, c.inputs);
  dump_for_khronos(written, c, want);
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); i++) {
    auto r = compare_tensors(got[i], want[i], rtol, atol);
    EXPECT_TRUE(r.ok) << "output " << i << ": " << r.summary() << "\n" << text;
  }
}

Case unary_case(ops::UnaryKind kind, ops::UnaryParams params, Tensor x) {
  Case c;
  Outlet in = c.input("x", std::move(x));
  int n = c.graph->add_node("act", std::make_shared<ops::Unary>(kind, params), {in});
  c.outputs({{n, 0}});
  return c;
}

TEST(NnefStrictLowering, Activations) {
  using K = ops::UnaryKind;
  struct A {
    K kind;
    ops::UnaryParams p;
    float lo, hi;
    std::vector<std::string> ops;
  };
  std::vector<A> cases = {
      {K::HardSigmoid, {0.2f, 0.5f}, -6, 6, {"clamp", "mul", "add"}},
      {K::HardSwish, {}, -6, 6, {"clamp", "div", "mul"}},
      {K::Selu, {1.6732632f, 0.f, 1.0507010f}, -4, 4, {"select", "exp"}},
      {K::Celu, {1.3f}, -4, 4, {"exp", "min", "max"}},
      {K::Softsign, {}, -5, 5, {"div", "abs"}},
      {K::ThresholdedRelu, {0.7f}, -2, 2, {"select", "gt"}},
      {K::Shrink, {0.5f, 0.25f}, -2, 2, {"select", "lt", "gt"}},
      {K::GeluTanh, {}, -5, 5, {"tanh", "mul"}},
      {K::Tan, {}, -1.2f, 1.2f, {"sin", "cos"}},
      {K::Sinh, {}, -3, 3, {"exp", "neg"}},
      {K::Cosh, {}, -3, 3, {"exp", "neg"}},
      {K::Asinh, {}, -50, 50, {"log", "sqrt", "sign"}},
      {K::Acosh, {}, 1, 40, {"log", "sqrt"}},
      {K::Atanh, {}, -0.95f, 0.95f, {"log", "div"}},
      {K::Mish, {}, -20, 20, {"softplus", "tanh", "mul"}},
  };
  for (const auto& a : cases) {
    SCOPED_TRACE(ops::Unary(a.kind).name());
    Case c = unary_case(a.kind, a.p, random_f32({2, 3, 17}, 7, a.lo, a.hi));
    expect_strict_round_trip(c, a.ops, 2e-5, 2e-6);
  }
}

TEST(NnefStrictLowering, IsNaNAndIsInf) {
  Tensor x = random_f32({3, 5}, 3);
  auto v = x.values_mut<float>();
  v[1] = NAN;
  v[4] = INFINITY;
  v[7] = -INFINITY;
  Case nan = unary_case(ops::UnaryKind::IsNaN, {}, x);
  expect_strict_round_trip(nan, {"ne"});
  for (auto [pos, neg] : {std::pair{true, true}, {true, false}, {false, true}}) {
    ops::UnaryParams p;
    p.detect_positive = pos;
    p.detect_negative = neg;
    Case inf = unary_case(ops::UnaryKind::IsInf, p, x);
    expect_strict_round_trip(inf, {pos ? "gt" : "lt"});
  }
}

TEST(NnefStrictLowering, XorAndCasts) {
  Case c;
  Tensor a(DatumType::Bool, {2, 5}), b(DatumType::Bool, {5});
  for (int i = 0; i < 10; i++) a.values_mut<bool>()[size_t(i)] = (i * 7) % 3 == 0;
  for (int i = 0; i < 5; i++) b.values_mut<bool>()[size_t(i)] = i % 2 == 0;
  Outlet x = c.input("a", a), y = c.input("b", b);
  int xo = c.graph->add_node("xor", std::make_shared<ops::Binary>(ops::BinaryKind::Xor), {x, y});
  int f = c.graph->add_node("to_float", std::make_shared<ops::Cast>(DatumType::F32), {{xo, 0}});
  int back = c.graph->add_node("to_bool", std::make_shared<ops::Cast>(DatumType::Bool), {{f, 0}});
  c.outputs({{xo, 0}, {f, 0}, {back, 0}});
  expect_strict_round_trip(c, {"and", "or", "not", "select", "ne"});
}

TEST(NnefStrictLowering, InstanceAndMeanVarianceNorm) {
  Case c;
  Outlet x = c.input("x", random_f32({2, 3, 5, 7}, 11));
  Outlet scale = c.graph->add_const("scale", random_f32({3}, 12));
  Outlet bias = c.graph->add_const("bias", random_f32({3}, 13));
  int in = c.graph->add_node("inorm", std::make_shared<ops::InstanceNorm>(1e-5f), {x, scale, bias});
  int mvn = c.graph->add_node(
      "mvn", std::make_shared<ops::MeanVarianceNorm>(std::vector<int64_t>{0, 2, 3}), {x});
  c.outputs({{in, 0}, {mvn, 0}});
  expect_strict_round_trip(c, {"mean_reduce", "sqrt", "div"}, 1e-4, 1e-5);
  // Without --nnef-strict too: no other serializer writes them.
  EXPECT_NO_THROW(nnef::write_nnef(*c.graph));
}

TEST(NnefStrictLowering, ExpandPadWrapAndConstantGather) {
  Case c;
  Outlet x = c.input("x", random_f32({3, 1, 5}, 21));
  int e = c.graph->add_node("expand", std::make_shared<ops::Expand>(),
                            {x, c.graph->add_const("shape", ints({2, 3, 4, 5}))});
  int p = c.graph->add_node("pad", std::make_shared<ops::Pad>(ops::PadMode::Wrap),
                            {x, c.graph->add_const("pads", ints({1, 0, 2, -1, 0, 3}))});
  Tensor idx = ints({4, 0, 1, 2, 2, -1});
  int g = c.graph->add_node("gather", std::make_shared<ops::Gather>(2),
                            {x, c.graph->add_const("idx", idx)});
  c.outputs({{e, 0}, {p, 0}, {g, 0}});
  expect_strict_round_trip(c, {"tile", "slice", "concat"});
}

TEST(NnefStrictLowering, ResizeByIntegerFactors) {
  using R = ops::Resize;
  struct C {
    R::Mode mode;
    R::Coord coord;
    R::Nearest nearest;
    std::vector<std::string> ops;
  };
  std::vector<C> cases = {
      {R::Mode::Nearest, R::Coord::Asymmetric, R::Nearest::Floor, {"tile", "reshape"}},
      {R::Mode::Nearest, R::Coord::HalfPixel, R::Nearest::RoundPreferFloor, {"tile"}},
      {R::Mode::Nearest, R::Coord::PytorchHalfPixel, R::Nearest::RoundPreferCeil, {"tile"}},
      {R::Mode::Linear, R::Coord::HalfPixel, R::Nearest::RoundPreferFloor, {"pad", "slice"}},
      {R::Mode::Linear, R::Coord::PytorchHalfPixel, R::Nearest::RoundPreferFloor, {"pad"}},
  };
  for (const auto& k : cases) {
    SCOPED_TRACE(testing::Message() << int(k.mode) << " " << int(k.coord));
    Case c;
    Outlet x = c.input("x", random_f32({1, 2, 5, 7}, 51));
    R::Options o;
    o.mode = k.mode;
    o.coord = k.coord;
    o.nearest = k.nearest;
    int n = c.graph->add_node("resize", std::make_shared<R>(o),
                              {x, {}, {}, c.graph->add_const("sizes", ints({1, 2, 10, 21}))});
    c.outputs({{n, 0}});
    expect_strict_round_trip(c, k.ops, 1e-5, 1e-6);
  }
  // Cubic has no standard form here: refused under --nnef-strict.
  Case cubic;
  R::Options o;
  o.mode = R::Mode::Cubic;
  Outlet x = cubic.input("x", random_f32({1, 1, 4, 4}, 52));
  int n = cubic.graph->add_node("resize", std::make_shared<R>(o),
                                {x, {}, {}, cubic.graph->add_const("sizes", ints({1, 1, 8, 8}))});
  cubic.outputs({{n, 0}});
  nnef::WriteOptions strict;
  strict.strict = true;
  EXPECT_THROW(nnef::write_nnef(*cubic.graph, strict), Error);
}

ops::RecurrentConfig rnn_config(ops::RnnDirection dir, int64_t hidden, std::optional<float> clip) {
  ops::RecurrentConfig cfg;
  cfg.direction = dir;
  cfg.hidden_size = hidden;
  cfg.clip = clip;
  return cfg;
}

TEST(NnefStrictLowering, LstmUnrolled) {
  const int64_t T = 5, B = 2, I = 3, H = 4;
  for (bool bidirectional : {false, true}) {
    for (bool extras : {false, true}) {
      SCOPED_TRACE(testing::Message() << "bidirectional " << bidirectional << " extras " << extras);
      int64_t D = bidirectional ? 2 : 1;
      Case c;
      Outlet x = c.input("x", random_f32({T, B, I}, 31, -1, 1));
      std::vector<Outlet> in = {x, c.graph->add_const("w", random_f32({D, 4 * H, I}, 32, -.5, .5)),
                                c.graph->add_const("r", random_f32({D, 4 * H, H}, 33, -.5, .5)),
                                c.graph->add_const("b", random_f32({D, 8 * H}, 34, -.5, .5))};
      if (extras) {
        in.push_back({});  // sequence_lens
        in.push_back(c.graph->add_const("h0", random_f32({D, B, H}, 35, -1, 1)));
        in.push_back(c.graph->add_const("c0", random_f32({D, B, H}, 36, -1, 1)));
        in.push_back(c.graph->add_const("p", random_f32({D, 3 * H}, 37, -.5, .5)));
      }
      auto cfg =
          rnn_config(bidirectional ? ops::RnnDirection::Bidirectional : ops::RnnDirection::Reverse,
                     H, extras ? std::optional<float>(0.8f) : std::nullopt);
      int n = c.graph->add_node("lstm", std::make_shared<ops::Lstm>(cfg, false), in, 3);
      c.outputs({{n, 0}, {n, 1}, {n, 2}});
      expect_strict_round_trip(c, {"matmul", "split", "sigmoid", "tanh"}, 1e-4, 1e-5);
    }
  }
}

TEST(NnefStrictLowering, GruUnrolled) {
  const int64_t T = 4, B = 3, I = 5, H = 3;
  for (bool lbr : {false, true}) {
    SCOPED_TRACE(testing::Message() << "linear_before_reset " << lbr);
    Case c;
    Outlet x = c.input("x", random_f32({T, B, I}, 41, -1, 1));
    std::vector<Outlet> in = {x,
                              c.graph->add_const("w", random_f32({1, 3 * H, I}, 42, -.5, .5)),
                              c.graph->add_const("r", random_f32({1, 3 * H, H}, 43, -.5, .5)),
                              c.graph->add_const("b", random_f32({1, 6 * H}, 44, -.5, .5)),
                              {},
                              c.graph->add_const("h0", random_f32({1, B, H}, 45, -1, 1))};
    auto cfg = rnn_config(ops::RnnDirection::Forward, H, std::nullopt);
    int n = c.graph->add_node("gru", std::make_shared<ops::Gru>(cfg, lbr), in, 2);
    c.outputs({{n, 0}, {n, 1}});
    expect_strict_round_trip(c, {"matmul", "split", "sigmoid", "tanh"}, 1e-4, 1e-5);
  }
}

TEST(NnefStrictLowering, ExactGeluHasNoStandardFormAndIsRefused) {
  Case c = unary_case(ops::UnaryKind::Gelu, {}, random_f32({4}, 1));
  nnef::WriteOptions strict;
  strict.strict = true;
  try {
    nnef::write_nnef(*c.graph, strict);
    FAIL() << "strict Gelu (erf) must be refused";
  } catch (const Error& e) {
    EXPECT_NE(e.chain().find("Gelu"), std::string::npos) << e.chain();
    EXPECT_NE(e.chain().find("docs/nnef.md"), std::string::npos) << e.chain();
  }
  // Without --nnef-strict it stays the kiln_core_unary extension.
  EXPECT_NE(nnef::write_nnef(*c.graph).files.at("graph.nnef").find("kiln_core_unary"),
            std::string::npos);
}

TEST(NnefStrictLowering, NonStrictKeepsTheExtensionForRoundTrips) {
  Case c = unary_case(ops::UnaryKind::HardSwish, {}, random_f32({4}, 1));
  std::string text = nnef::write_nnef(*c.graph).files.at("graph.nnef");
  EXPECT_NE(text.find("kiln_core_unary"), std::string::npos) << text;
}

TEST(NnefStrictLowering, SymbolicDimsAreRefused) {
  Case c;
  Outlet x = c.graph->add_source("x", Fact::parse("1,S,4,f32"));
  int n = c.graph->add_node("relu", std::make_shared<ops::Unary>(ops::UnaryKind::Relu), {x});
  c.outputs({{n, 0}});
  nnef::WriteOptions strict;
  strict.strict = true;
  try {
    nnef::write_nnef(*c.graph, strict);
    FAIL() << "strict with a symbolic dim must be refused";
  } catch (const Error& e) {
    EXPECT_NE(e.chain().find("symbolic dims (S)"), std::string::npos) << e.chain();
  }
}

}  // namespace
