// NNEF graphs into kiln: the tract/torch-to-nnef example, compound fragments, expressions,
// quantized variables, extensions and errors.
#include <gtest/gtest.h>

#include <cmath>

#include "base/error.h"
#include "core/state.h"
#include "io/nnef/dat_file.h"
#include "io/nnef/nnef_loader.h"

namespace {

using namespace kiln;
using nnef::FileMap;

std::vector<Tensor> run(const FileMap& files, const std::vector<Tensor>& inputs) {
  auto g = nnef::load_nnef_files(files);
  bind_input_shapes(*g, inputs);
  g->analyse();
  return run_graph(g, inputs);
}

std::string load_error(const FileMap& files) {
  try {
    nnef::load_nnef_files(files);
  } catch (const Error& e) {
    return e.chain();
  }
  return "";
}

// The graph of the tract / torch-to-nnef talk (seed 003), verbatim.
const char* kSeedGraph = R"(
fragment gelu_fast_approx( x: tensor<scalar> ) -> ( y: tensor<scalar> )
{
    y = 0.5 * x * (1.0 + tanh(x * 0.7978845608 * (1.0 + 0.044715 * x * x)));
}

graph network(input_0) -> (output_0)
{
    input_0 = tract_core_external(shape = [1, 2], datum_type = 'f32');
    lin_weight = variable<scalar>(label = 'lin.weight', shape = [2, 2]);
    lin_bias = variable<scalar>(label = 'lin.bias', shape = [2]);
    lin_bias_aligned_rank_expanded = unsqueeze(lin_bias, axes = [0]);
    lin_x_linear0 = linear(input_0, lin_weight, lin_bias_aligned_rank_expanded);
    gelu0 = gelu_fast_approx(lin_x_linear0);
    lin_bias_aligned_rank_expanded = unsqueeze(lin_bias, axes = [0]);
    lin_2nd_call_x = linear(gelu0, lin_weight, lin_bias_aligned_rank_expanded);
    output_0 = gelu_fast_approx(lin_2nd_call_x);
}
)";

double gelu(double x) {
  return 0.5 * x * (1.0 + std::tanh(x * 0.7978845608 * (1.0 + 0.044715 * x * x)));
}

TEST(NnefLoader, SeedExampleLoadsAndRuns) {
  const float w[4] = {0.5f, -1.0f, 2.0f, 0.25f};  // [out, in]
  const float b[2] = {0.1f, -0.2f};
  FileMap files = {
      {"graph.nnef", kSeedGraph},
      {"lin.weight.dat",
       nnef::write_dat(Tensor::from_vector<float>({2, 2}, {w[0], w[1], w[2], w[3]}))},
      {"lin.bias.dat", nnef::write_dat(Tensor::from_vector<float>({2}, {b[0], b[1]}))}};
  auto g = nnef::load_nnef_files(files);
  ASSERT_EQ(g->inputs().size(), 1u);
  EXPECT_EQ(g->input_name(0), "input_0");
  EXPECT_EQ(g->output_names(), std::vector<std::string>{"output_0"});
  EXPECT_GE(g->find_node("lin_x_linear0"), 0);
  float x[2] = {0.3f, -1.5f};
  auto out = run(files, {Tensor::from_vector<float>({1, 2}, {x[0], x[1]})});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].shape(), (Shape{1, 2}));
  double h[2], y[2];
  for (int o = 0; o < 2; o++) h[o] = gelu(x[0] * w[2 * o] + x[1] * w[2 * o + 1] + b[o]);
  for (int o = 0; o < 2; o++) y[o] = gelu(h[0] * w[2 * o] + h[1] * w[2 * o + 1] + b[o]);
  EXPECT_NEAR(out[0].values<float>()[0], y[0], 1e-5);
  EXPECT_NEAR(out[0].values<float>()[1], y[1], 1e-5);
}

TEST(NnefLoader, StandardOpsAndExpressions) {
  FileMap files = {{"graph.nnef", R"(
version 1.0;
extension tract_symbol S;
fragment twice( x: tensor<scalar>, k: integer = 2 ) -> ( y: tensor<scalar>, z: tensor<scalar> )
{
    y = x * (k if k > 1 else 7);
    z = -x;
}
graph g( x ) -> ( a, b, c, d )
{
    x = external<scalar>(shape = [1, S, 4]);
    (a, n) = twice(x);
    b = reshape(transpose(x, axes = [0, 2, 1]), shape = [4, -1]);
    [c0, c1] = split(x, axis = 2, ratios = [1, 3]);
    c = concat([c1, c0], axis = 2);
    d = sum_reduce(clamp(n, -1.0, 1.0), axes = [1, 2], normalize = true);
}
)"}};
  auto g = nnef::load_nnef_files(files);
  EXPECT_EQ(g->fact(g->inputs()[0]).to_string(), "1,S,4,f32");
  std::vector<float> xs = {1, 2, 3, 4, 5, 6, 7, 8};
  auto out = run(files, {Tensor::from_vector<float>({1, 2, 4}, xs)});
  ASSERT_EQ(out.size(), 4u);
  EXPECT_TRUE(out[0].equals(Tensor::from_vector<float>({1, 2, 4}, {2, 4, 6, 8, 10, 12, 14, 16})));
  EXPECT_TRUE(out[1].equals(Tensor::from_vector<float>({4, 2}, {1, 5, 2, 6, 3, 7, 4, 8})));
  EXPECT_TRUE(out[2].equals(Tensor::from_vector<float>({1, 2, 4}, {2, 3, 4, 1, 6, 7, 8, 5})));
  EXPECT_TRUE(out[3].equals(Tensor::from_vector<float>({1, 1, 1}, {-1.0f})));
}

TEST(NnefLoader, ConvPoolAndTrailingBroadcast) {
  // 1x1x3x3 input, 2 filters 1x1x2x2, bias [1, 2] broadcast NNEF-style, then max pool.
  FileMap files = {{"graph.nnef", R"(
graph g( x ) -> ( y, p )
{
    x = external(shape = [1, 1, 3, 3]);
    w = variable(label = 'w', shape = [2, 1, 2, 2]);
    bias = variable(label = 'b', shape = [1, 2]);
    y = conv(x, w, bias, padding = [(0, 0), (0, 0)]);
    p = max_pool(x, size = [1, 1, 2, 2], border = 'ignore', padding = [(0, 0), (0, 0), (0, 1), (0, 1)],
                 stride = [1, 1, 2, 2]);
}
)"},
                   {"w.dat", nnef::write_dat(Tensor::from_vector<float>({2, 1, 2, 2},
                                                                        {1, 0, 0, 1, 0, 1, 1, 0}))},
                   {"b.dat", nnef::write_dat(Tensor::from_vector<float>({1, 2}, {10, 100}))}};
  auto out = run(files, {Tensor::from_vector<float>({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})});
  EXPECT_TRUE(
      out[0].equals(Tensor::from_vector<float>({1, 2, 2, 2}, {16, 18, 22, 24, 106, 108, 112, 114})))
      << out[0].to_string(16);
  EXPECT_TRUE(out[1].equals(Tensor::from_vector<float>({1, 1, 2, 2}, {5, 6, 8, 9})))
      << out[1].to_string();
}

TEST(NnefLoader, QuantizedVariablesAreDequantized) {
  std::string dat = nnef::write_dat(Tensor::from_vector<int8_t>({3}, {-2, 0, 5}));
  dat[48] = 3;  // quantized signed
  FileMap files = {{"graph.nnef", R"(
graph g( x ) -> ( y )
{
    x = external(shape = [3]);
    w = variable<scalar>(label = 'w', shape = [3]);
    y = x + w;
}
)"},
                   {"w.dat", dat},
                   {"graph.quant",
                    "\"w\": zero_point_linear_quantize(zero_point = 1, scale = 0.5, bits = 8, "
                    "signed = true, symmetric = false);"}};
  auto out = run(files, {Tensor::from_vector<float>({3}, {0, 0, 0})});
  EXPECT_TRUE(out[0].equals(Tensor::from_vector<float>({3}, {-1.5f, -0.5f, 2.0f})))
      << out[0].to_string();
  files.erase("graph.quant");
  EXPECT_NE(load_error(files).find("without a graph.quant entry"), std::string::npos);
}

TEST(NnefLoader, TractFragments) {
  FileMap files = {{"graph.nnef", R"(
version 1.0;
extension tract_registry tract_core;
graph g( x, i ) -> ( a, b, c, d )
{
    x = tract_core_external(shape = [2, 3], datum_type = 'f32');
    i = tract_core_external(shape = [2], datum_type = 'i64');
    a = tract_core_gather(x, i, axis = 1);
    b = tract_core_cast(x, to = 'i32');
    c = tract_core_einsum([x, x], expr = 'ij,kj->ik', acc = 'f32', output = '');
    d = tract_core_softmax(tract_core_erf(x), axes = [1]);
}
)"}};
  auto out = run(files, {Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6}),
                         Tensor::from_vector<int64_t>({2}, {2, 0})});
  EXPECT_TRUE(out[0].equals(Tensor::from_vector<float>({2, 2}, {3, 1, 6, 4})));
  EXPECT_TRUE(out[1].equals(Tensor::from_vector<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6})));
  EXPECT_TRUE(out[2].equals(Tensor::from_vector<float>({2, 2}, {14, 32, 32, 77})));
  EXPECT_NEAR(out[3].values<float>()[0] + out[3].values<float>()[1] + out[3].values<float>()[2],
              1.0, 1e-6);
}

// torch-to-nnef's dynamic axes: dims computed from tract_core_shape_of feed reshape.
TEST(NnefLoader, ShapeOfDimsFeedReshape) {
  FileMap files = {{"graph.nnef", R"(
version 1.0;
extension tract_registry tract_core;
extension tract_symbol B;
graph network( input ) -> ( output )
{
    input = tract_core_external(shape = [B, 3, 4], datum_type = 'f32');
    input_shape = tract_core_shape_of(input);
    input_shape_sliced0 = slice(input_shape, axes = [0], begin = [0], end = [1], stride = [1]);
    input_dim0 = squeeze(input_shape_sliced0, axes = [0]);
    output = reshape(input, shape = [input_dim0, 12]);
}
)"}};
  auto g = nnef::load_nnef_files(files);
  g->analyse();
  EXPECT_EQ(g->fact(g->outputs()[0]).to_string(), "B,12,f32");
  std::vector<float> xs(24);
  for (size_t i = 0; i < xs.size(); i++) xs[i] = float(i);
  auto out = run(files, {Tensor::from_vector<float>({2, 3, 4}, xs)});
  EXPECT_TRUE(out[0].equals(Tensor::from_vector<float>({2, 12}, xs)));
}

TEST(NnefLoader, ErrorsAreClear) {
  auto graph = [](const std::string& body) {
    return FileMap{{"graph.nnef", "graph g( x ) -> ( y )\n{\n" + body + "\n}\n"}};
  };
  EXPECT_NE(load_error(graph("x = external(shape = [1]);\ny = frobnicate(x);"))
                .find("line 4:5: unknown operation 'frobnicate'"),
            std::string::npos)
      << load_error(graph("x = external(shape = [1]);\ny = frobnicate(x);"));
  EXPECT_NE(load_error(graph("x = external(shape = [1]);\ny = relu(z);"))
                .find("undefined identifier 'z'"),
            std::string::npos);
  EXPECT_NE(load_error(graph("x = external(shape = [1]);\ny = relu(x, bogus = 1);"))
                .find("no parameter 'bogus'"),
            std::string::npos);
  EXPECT_NE(load_error(graph("x = external(shape = [2]);\ny = variable(label = 'w', shape = [2]);"))
                .find("no tensor file 'w.dat'"),
            std::string::npos);
  EXPECT_NE(load_error({{"graph.nnef",
                         "version 1.0;\nextension tract_registry tract_transformers;\n"
                         "graph g( x ) -> ( x ) { x = external(shape = [1]); }"}})
                .find("unknown NNEF extension(s) 'tract_registry tract_transformers'"),
            std::string::npos);
  EXPECT_NE(load_error({{"graph.nnef",
                         "fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> ) { y = f(x); }\n"
                         "graph g( x ) -> ( y ) { x = external(shape = [1]); y = f(x); }"}})
                .find("nested more than 64 deep"),
            std::string::npos);
  EXPECT_NE(load_error({{"w.dat", ""}}).find("no graph.nnef"), std::string::npos);
  EXPECT_NE(load_error(graph("x = constant(shape = [100000, 100000], value = [0.0]);\ny = x;"))
                .find("too large for a literal constant"),
            std::string::npos);
  EXPECT_NE(load_error(graph("y = external(shape = [1]);")).find("'x' is never defined"),
            std::string::npos);
  FileMap bad_dat = graph("x = external(shape = [2]);\ny = variable(label = 'w', shape = [2]);");
  bad_dat["w.dat"] = nnef::write_dat(Tensor::from_vector<float>({3}, {1, 2, 3}));
  EXPECT_NE(load_error(bad_dat).find("declared shape [2]"), std::string::npos);
}

}  // namespace

namespace {

// Mutated documents and tensor files: every outcome is a model or a kiln::Error, never a crash
// or another exception type.
TEST(NnefLoader, FuzzedInputsGiveCleanErrors) {
  const std::string w = nnef::write_dat(Tensor::from_vector<float>({2, 2}, {1, 2, 3, 4}));
  const std::string b = nnef::write_dat(Tensor::from_vector<float>({2}, {1, 2}));
  const std::string text = kSeedGraph;
  uint64_t state = 12345;
  auto rnd = [&](uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % n;
  };
  const std::string alphabet = "()[]{},;:=<>+-*/^!?'\"#.0123456789 \nabcxyz_";
  int loaded = 0, errors = 0;
  for (int i = 0; i < 3000; i++) {
    FileMap files = {{"graph.nnef", text}, {"lin.weight.dat", w}, {"lin.bias.dat", b}};
    std::string& victim = i % 3 == 0 ? files["lin.weight.dat"] : files["graph.nnef"];
    int edits = 1 + int(rnd(4));
    for (int e = 0; e < edits && !victim.empty(); e++) {
      size_t pos = rnd(victim.size());
      switch (rnd(4)) {
        case 0:
          victim[pos] = alphabet[rnd(alphabet.size())];
          break;
        case 1:
          victim.erase(pos, 1 + rnd(8));
          break;
        case 2:
          victim.insert(pos, 1, alphabet[rnd(alphabet.size())]);
          break;
        default:
          victim[pos] = char(rnd(256));
          break;
      }
    }
    try {
      auto g = nnef::load_nnef_files(files);
      g->analyse();
      loaded++;
    } catch (const Error&) {
      errors++;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "mutation " << i << ": non-kiln exception: " << e.what() << "\n"
                    << files["graph.nnef"];
      return;
    }
  }
  EXPECT_GT(errors, 1000);
  EXPECT_GT(loaded, 10);
}

}  // namespace
