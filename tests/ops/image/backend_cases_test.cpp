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
  std::shared_ptr<kiln::Graph> graph;
  try {
    graph = kiln::onnx_io::load_onnx_file((dir / "model.onnx").string());
  } catch (const kiln::Error& e) {
    // Cases that also need ops of other families (Constant...) wait for those to land.
    if (std::string(e.what()).find("does not support") != std::string::npos)
      GTEST_SKIP() << e.what();
    throw;
  }
  graph->analyse();
  fs::path data = dir / "test_data_set_0";
  std::vector<kiln::Tensor> inputs;
  for (size_t i = 0; fs::exists(data / ("input_" + std::to_string(i) + ".pb")); i++)
    inputs.push_back(read_pb(data / ("input_" + std::to_string(i) + ".pb")));
  std::vector<kiln::Tensor> outputs = kiln::run_graph(graph, inputs);
  // These cases store expected values rounded to 4 decimals, so they need a wider atol.
  const bool rounded =
      GetParam() == "test_gridsample_bicubic" || GetParam().rfind("test_roialign", 0) == 0;
  const double atol = rounded ? 1e-4 : 1e-5;
  for (size_t i = 0; fs::exists(data / ("output_" + std::to_string(i) + ".pb")); i++) {
    kiln::Tensor expected = read_pb(data / ("output_" + std::to_string(i) + ".pb"));
    ASSERT_LT(i, outputs.size());
    const kiln::Tensor& got = outputs[i];
    ASSERT_EQ(got.dtype(), expected.dtype()) << "output " << i;
    ASSERT_EQ(got.shape(), expected.shape()) << "output " << i << ": " << got.to_string();
    for (int64_t j = 0; j < got.numel(); j++) {
      double g = got.value_as_double(j), e = expected.value_as_double(j);
      if (kiln::is_float(got.dtype())) {
        EXPECT_LE(std::abs(g - e), atol + 1e-4 * std::abs(e))
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
      "test_depthtospace_crd_mode",
      "test_depthtospace_crd_mode_example",
      "test_depthtospace_dcr_mode",
      "test_depthtospace_example",
      "test_dequantizelinear",
      "test_dequantizelinear_axis",
      "test_dynamicquantizelinear",
      "test_dynamicquantizelinear_max_adjusted",
      "test_dynamicquantizelinear_min_adjusted",
      "test_gridsample",
      "test_gridsample_aligncorners_true",
      "test_gridsample_bicubic",
      "test_gridsample_bilinear",
      "test_gridsample_border_padding",
      "test_gridsample_nearest",
      "test_gridsample_reflection_padding",
      "test_gridsample_zeros_padding",
      "test_matmulinteger",
      "test_maxunpool_export_with_output_shape",
      "test_maxunpool_export_without_output_shape",
      "test_nonmaxsuppression_center_point_box_format",
      "test_nonmaxsuppression_flipped_coordinates",
      "test_nonmaxsuppression_identical_boxes",
      "test_nonmaxsuppression_limit_output_size",
      "test_nonmaxsuppression_single_box",
      "test_nonmaxsuppression_suppress_by_IOU",
      "test_nonmaxsuppression_suppress_by_IOU_and_scores",
      "test_nonmaxsuppression_two_batches",
      "test_nonmaxsuppression_two_classes",
      "test_qlinearconv",
      "test_qlinearmatmul_2D",
      "test_qlinearmatmul_3D",
      "test_quantizelinear",
      "test_quantizelinear_axis",
      "test_resize_downsample_scales_cubic",
      "test_resize_downsample_scales_cubic_A_n0p5_exclude_outside",
      "test_resize_downsample_scales_cubic_align_corners",
      "test_resize_downsample_scales_linear",
      "test_resize_downsample_scales_linear_align_corners",
      "test_resize_downsample_scales_nearest",
      "test_resize_downsample_sizes_cubic",
      "test_resize_downsample_sizes_linear_pytorch_half_pixel",
      "test_resize_downsample_sizes_nearest",
      "test_resize_downsample_sizes_nearest_tf_half_pixel_for_nn",
      "test_resize_tf_crop_and_resize",
      "test_resize_upsample_scales_cubic",
      "test_resize_upsample_scales_cubic_A_n0p5_exclude_outside",
      "test_resize_upsample_scales_cubic_align_corners",
      "test_resize_upsample_scales_cubic_asymmetric",
      "test_resize_upsample_scales_linear",
      "test_resize_upsample_scales_linear_align_corners",
      "test_resize_upsample_scales_nearest",
      "test_resize_upsample_sizes_cubic",
      "test_resize_upsample_sizes_nearest",
      "test_resize_upsample_sizes_nearest_ceil_half_pixel",
      "test_resize_upsample_sizes_nearest_floor_align_corners",
      "test_resize_upsample_sizes_nearest_round_prefer_ceil_asymmetric",
      "test_roialign_aligned_false",
      "test_roialign_aligned_true",
      "test_spacetodepth",
      "test_spacetodepth_example",
      "test_upsample_nearest",
  };
}

INSTANTIATE_TEST_SUITE_P(Node, ImageBackendCase, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.substr(5); });

}  // namespace
