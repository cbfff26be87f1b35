// Every ONNX model of ../shared/models must reproduce ONNX Runtime's outputs.
#include <gtest/gtest.h>

#include <filesystem>

#include "../onnx_backend/backend_case.h"
#include "tests/cli/run_kiln.h"

namespace {

namespace fs = std::filesystem;

class SharedModel : public ::testing::TestWithParam<std::string> {};

TEST_P(SharedModel, MatchesReference) {
  fs::path models = kiln::testing::shared_models_dir();  // also from a worktree
  fs::path dir = models / GetParam();
  if (models.empty() || !fs::exists(dir / "model.onnx")) GTEST_SKIP() << dir << " not present";
  auto r = kiln::testing::run_backend_case(dir.string());
  EXPECT_TRUE(r.passed) << r.message;
}

INSTANTIATE_TEST_SUITE_P(Models, SharedModel,
                         ::testing::Values("mobilenet_v2", "squeezenet1_1", "kws_tdnn", "lstm_kws",
                                           "tiny_bert", "silero_vad_v4", "silero_vad_v5",
                                           "wavenet_kws", "tdnn_stream", "crnn_stream",
                                           "conv2d_stream"));

}  // namespace
