// graph.quant (io/nnef/graph_quant.h) in tract's form: a hand-written archive (graph.nnef +
// graph.quant + .dat with NNEF's quantized item types) loads from a directory and a .tgz and
// gives the values worked out by hand; quantized variables stay integers behind a
// DequantizeLinear; the writer puts per-tensor parameters in graph.quant and reads them back
// exactly; hostile entries are clear errors.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "base/error.h"
#include "core/state.h"
#include "io/nnef/archive.h"
#include "io/nnef/dat_file.h"
#include "io/nnef/nnef_loader.h"
#include "io/nnef/nnef_writer.h"

namespace {

using namespace kiln;
using nnef::FileMap;

// A tensor file with NNEF's quantized item type (2 unsigned, 3 signed), as tract writes them.
template <typename T>
std::string quantized_dat(Shape shape, const std::vector<T>& v) {
  std::string dat = nnef::write_dat(Tensor::from_vector<T>(std::move(shape), v));
  dat[48] = std::is_signed_v<T> ? 3 : 2;
  return dat;
}

// x on the u8 grid (zero point 128, scale 0.5), an i8 weight of scale 0.25, an i32 bias of scale
// 0.125, the sum on the u8 grid (zero point 100, scale 0.1):
//   xq = [1.5, -2.5] for x = [1.3, -2.6]; w = [[0.5, -1], [1.5, 2]]; m = xq w = [-3, -6.5];
//   b = [0.5, -0.25]; s = [-2.5, -6.75]; y = 0.1 * (round_half_even(s / 0.1) + 100 - 100)
//   = [-2.5, -6.8] (-67.5 rounds to -68).
FileMap tract_archive() {
  return {{"graph.nnef", R"(version 1.0;

graph network( x ) -> ( y )
{
    x = external<scalar>(shape = [1, 2]);
    xq = copy(x);
    w = variable<scalar>(label = 'w', shape = [2, 2]);
    b = variable<integer>(label = 'b', shape = [1, 2]);
    m = matmul(xq, w);
    s = add(m, b);
    y = copy(s);
}
)"},
          {"graph.quant",
           "\"xq\": zero_point_linear_quantize(zero_point = 128, scale = 0.5, bits = 8, signed = "
           "false, symmetric = false);\n"
           "\"w\": zero_point_linear_quantize(zero_point = 0, scale = 0.25, bits = 8, signed = "
           "true, symmetric = true);\n"
           "\"b\": zero_point_linear_quantize(zero_point = 0, scale = 0.125, bits = 32, signed = "
           "true, symmetric = true);\n"
           "\"y\": zero_point_linear_quantize(zero_point = 100, scale = 0.1, bits = 8, signed = "
           "false, symmetric = false);\n"},
          {"w.dat", quantized_dat<int8_t>({2, 2}, {2, -4, 6, 8})},
          {"b.dat", quantized_dat<int32_t>({1, 2}, {4, -2})}};
}

std::vector<Tensor> run(const std::shared_ptr<Graph>& g, const std::vector<Tensor>& inputs) {
  bind_input_shapes(*g, inputs);
  g->analyse();
  return run_graph(g, inputs);
}

void expect_known_values(const std::shared_ptr<Graph>& g) {
  auto out = run(g, {Tensor::from_vector<float>({1, 2}, {1.3f, -2.6f})});
  ASSERT_EQ(out.size(), 1u);
  auto v = out[0].values<float>();
  ASSERT_EQ(v.size(), 2u);
  EXPECT_NEAR(v[0], -2.5f, 1e-5);
  EXPECT_NEAR(v[1], -6.8f, 1e-5);
}

int count_ops(const Graph& g, const std::string& name) {
  int n = 0;
  for (const auto& node : g.nodes()) n += node.op->name() == name;
  return n;
}

TEST(NnefGraphQuant, TractArchiveLoadsAndRunsFromDirectoryAndTgz) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("kiln_graph_quant_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  nnef::write_container((dir / "model").string(), tract_archive());
  nnef::write_container((dir / "model.nnef.tgz").string(), tract_archive());
  for (const char* name : {"model", "model.nnef.tgz"}) {
    SCOPED_TRACE(name);
    auto g = nnef::load_nnef((dir / name).string());
    // Variables stay integers behind a DequantizeLinear; the two tensors with entries are
    // quantized and dequantized where they are computed.
    EXPECT_EQ(count_ops(*g, "DequantizeLinear"), 4);
    EXPECT_EQ(count_ops(*g, "QuantizeLinear"), 2);
    expect_known_values(g);
  }
  std::filesystem::remove_all(dir);
}

TEST(NnefGraphQuant, WriterPutsPerTensorParametersInGraphQuant) {
  auto g = nnef::load_nnef_files(tract_archive());
  g->analyse();
  nnef::WriteOptions strict;
  strict.strict = true;  // graph.quant and copy are standard NNEF
  auto written = nnef::write_nnef(*g, strict);
  ASSERT_TRUE(written.files.count("graph.quant"));
  const std::string& quant = written.files.at("graph.quant");
  EXPECT_NE(quant.find("zero_point_linear_quantize(zero_point = 128, scale = 0.5, bits = 8, "
                       "signed = false, symmetric = false);"),
            std::string::npos)
      << quant;
  EXPECT_NE(quant.find("bits = 32, signed = true, symmetric = true"), std::string::npos) << quant;
  const std::string& text = written.files.at("graph.nnef");
  EXPECT_EQ(text.find("kiln_core"), std::string::npos) << text;
  EXPECT_NE(text.find("copy("), std::string::npos) << text;
  EXPECT_EQ(text.find("variable<integer>"), std::string::npos) << text;  // scalar, as tract
  // Integer variables use the quantized item types.
  int quantized_dats = 0;
  for (const auto& [name, bytes] : written.files)
    if (name.ends_with(".dat")) quantized_dats += bytes[48] == 2 || bytes[48] == 3;
  EXPECT_EQ(quantized_dats, 2);
  expect_known_values(nnef::load_nnef_files(written.files));
}

std::string load_error(const std::string& quant) {
  FileMap files = tract_archive();
  files["graph.quant"] = quant;
  try {
    nnef::load_nnef_files(files);
  } catch (const Error& e) {
    return e.chain();
  }
  return "";
}

TEST(NnefGraphQuant, HostileEntriesAreClearErrors) {
  const std::string ok_tail = "bits = 8, signed = false, symmetric = false);";
  struct Case {
    std::string quant, message;
  };
  const std::vector<Case> cases = {
      {"\"w\": zero_point_linear_quantize(zero_point = 0, scale = 0.25, colour = 3, " + ok_tail,
       "unknown argument 'colour'"},
      {"\"w\": zero_point_linear_quantize(zero_point = 0, scale = 0.25, bits = 0, signed = true);",
       "bits = 0"},
      {"\"w\": zero_point_linear_quantize(zero_point = 0, scale = 0.25, bits = 99, signed = "
       "true);",
       "bits = 99"},
      {tract_archive().at("graph.quant") +
           "\"nowhere\": zero_point_linear_quantize(zero_point = 0, scale = 0.25, " + ok_tail,
       "names tensor 'nowhere', which graph.nnef never defines"},
      {"\"w\": zero_point_linear_quantize(zero_point = 0, " + ok_tail,
       "argument 'scale' is missing"},
      {"\"w\": zero_point_linear_quantize(zero_point = 300, scale = 0.25, " + ok_tail,
       "zero_point 300 outside"},
      {"\"w\": zero_point_linear_quantize(zero_point = 0, scale = 0.0, " + ok_tail,
       "scale must be positive"},
      {"\"w\": linear_quantize(min = 1.0, max = -1.0, bits = 8);", "min < max"},
      {"\"w\": float_quantize(bits = 8);", "unknown quantization 'float_quantize'"},
      {"\"w\": zero_point_linear_quantize(zero_point = 0, scale = 0.25, bits = 8, signed = false, "
       "symmetric = true);",
       "8-bit unsigned integers but 'w.dat' holds i8"},
      {"garbage \x01\x02 ;;", "graph.quant"},
      {"\"w\": zero_point_linear_quantize(zero_point = 'a', scale = 0.25, " + ok_tail,
       "must be a number"},
      {"\"xq\": zero_point_linear_quantize(zero_point = 0, scale = 0.5, bits = 16, signed = "
       "false);",
       "16-bit activations"},
  };
  for (const auto& c : cases) {
    const std::string err = load_error(c.quant);
    EXPECT_NE(err.find(c.message), std::string::npos) << c.quant << "\n -> " << err;
  }
}

}  // namespace
