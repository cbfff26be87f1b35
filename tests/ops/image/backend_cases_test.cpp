// Runs the ONNX backend node test cases of the image and quantization families (when the
// test data is installed) through the loader and the reference ops.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/state.h"
#include "io/onnx/onnx_loader.h"
#include "io/onnx/tensor_proto.h"

namespace {

namespace fs = std::filesystem;
const char* kRoot = "/usr/share/libonnx-testdata/data/node/";

kiln::Tensor read_pb(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  onnx::TensorProto proto;
  EXPECT_TRUE(proto.ParseFromIstream(&in)) << path;
  return kiln::onnx_io::tensor_from_proto(proto);
}

class ImageBackendCase : public ::testing::TestWithParam<std::string> {};

TEST_P(ImageBackendCase, MatchesExpectedOutputs) {
  fs::path dir = fs::path(kRoot) / GetParam();
  if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << "no test data at " << dir;
  auto graph = kiln::onnx_io::load_onnx_file((dir / "model.onnx").string());
  graph->analyse();
  fs::path data = dir / "test_data_set_0";
  std::vector<kiln::Tensor> inputs;
  for (size_t i = 0; fs::exists(data / ("input_" + std::to_string(i) + ".pb")); i++)
    inputs.push_back(read_pb(data / ("input_" + std::to_string(i) + ".pb")));
  std::vector<kiln::Tensor> outputs = kiln::run_graph(graph, inputs);
  for (size_t i = 0; fs::exists(data / ("output_" + std::to_string(i) + ".pb")); i++) {
    kiln::Tensor expected = read_pb(data / ("output_" + std::to_string(i) + ".pb"));
    ASSERT_LT(i, outputs.size());
    const kiln::Tensor& got = outputs[i];
    ASSERT_EQ(got.dtype(), expected.dtype()) << "output " << i;
    ASSERT_EQ(got.shape(), expected.shape()) << "output " << i << ": " << got.to_string();
    for (int64_t j = 0; j < got.numel(); j++) {
      double g = got.value_as_double(j), e = expected.value_as_double(j);
      if (kiln::is_float(got.dtype())) {
        EXPECT_LE(std::abs(g - e), 1e-5 + 1e-4 * std::abs(e))
            << "output " << i << " element " << j << ": got " << g << " expected " << e;
      } else {
        EXPECT_EQ(g, e) << "output " << i << " element " << j;
      }
    }
  }
}

std::vector<std::string> cases() {
  return {
      "test_basic_convinteger",
      "test_convinteger_with_padding",
      "test_convinteger_without_padding",
      "test_dequantizelinear",
      "test_dequantizelinear_axis",
      "test_dynamicquantizelinear",
      "test_dynamicquantizelinear_max_adjusted",
      "test_dynamicquantizelinear_min_adjusted",
      "test_matmulinteger",
      "test_qlinearconv",
      "test_qlinearmatmul_2D",
      "test_qlinearmatmul_3D",
      "test_quantizelinear",
      "test_quantizelinear_axis",
  };
}

INSTANTIATE_TEST_SUITE_P(Node, ImageBackendCase, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.substr(5); });

}  // namespace
