// The streaming CLI: kiln run / dump / bench --pulse on the shared streaming models, and the
// refusals (kws_tdnn's global pool over time, a softmax over time) as exit code 1 with an error
// naming the node, the op and the axis.
#include <gtest/gtest.h>

#include <fstream>

#include "../cli/run_kiln.h"
#include "pulse_test_util.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

fs::path model_dir(const std::string& name) {
  return testing::stream_models_dir() / name;
}

TEST(PulseCli, RunAssertsBundleAndReportsDelay) {
  fs::path dir = model_dir("tdnn_stream");
  if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << dir << " not present";
  auto r = testing::run_kiln(fmt::format(
      "run {} --pulse 8 --input-bundle {} --assert-output-bundle {}", (dir / "model.onnx").string(),
      (dir / "test_data_set_1").string(), (dir / "test_data_set_1").string()));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("delay 16 frames"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("all 1 outputs match"), std::string::npos) << r.output;
  // The wrong reference fails: the check can fail.
  r = testing::run_kiln(fmt::format(
      "run {} --pulse 8 --input-bundle {} --assert-output-bundle {}", (dir / "model.onnx").string(),
      (dir / "test_data_set_0").string(), (dir / "test_data_set_1").string()));
  EXPECT_EQ(r.exit_code, 1) << r.output;
}

TEST(PulseCli, DumpPrintsPulsedFactsCostAndState) {
  fs::path dir = model_dir("crnn_stream");
  if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << dir << " not present";
  auto r =
      testing::run_kiln(fmt::format("dump {} --pulse S=4 --cost", (dir / "model.onnx").string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("PulseDelay"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("PulsedRecurrent"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[stream axis 1 pulse 2 delay 1]"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("delay 1 frames"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("FMA per pulse: "), std::string::npos) << r.output;
  // GRU h + LSTM h and c (64 floats each) + the conv's delay line (40 channels x 4 frames).
  EXPECT_NE(r.output.find(fmt::format("state: {} bytes", 3 * 64 * 4 + 40 * 4 * 4)),
            std::string::npos)
      << r.output;
  r = testing::run_kiln(fmt::format("dump {} --pulse 4 --json", (dir / "model.onnx").string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("\"delay\": 1"), std::string::npos) << r.output;
}

TEST(PulseCli, BenchReportsRealTimeFactor) {
  fs::path dir = model_dir("wavenet_kws");
  if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << dir << " not present";
  auto r =
      testing::run_kiln(fmt::format("bench {} --pulse 8 --frame-ms 10 --threads 1 --runs 20 --json",
                                    (dir / "model.onnx").string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("\"real_time_factor\""), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\"pulses\": 20"), std::string::npos) << r.output;
}

TEST(PulseCli, GlobalPoolOverTimeIsExitOneNamingNodeAndAxis) {
  fs::path dir = model_dir("kws_tdnn");
  if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << dir << " not present";
  auto r = testing::run_kiln(
      fmt::format("dump {} -i 1,40,T,f32 --pulse 8", (dir / "model.onnx").string()));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("node '"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("stream axis 2 (T)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("whole stream"), std::string::npos) << r.output;
}

TEST(PulseCli, SoftmaxOverTimeIsExitOneNamingNodeAndAxis) {
  fs::path dir = fs::temp_directory_path() / ("kiln_softmax_time_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "graph.nnef") << "version 1.0;\nextension tract_symbol S;\n"
                                       "graph g(input) -> (output) {\n"
                                       "  input = external<scalar>(shape = [1, 4, S]);\n"
                                       "  hidden = relu(input);\n"
                                       "  output = softmax(hidden, axes = [2]);\n}\n";
  auto r = testing::run_kiln(fmt::format("dump {} --pulse 8", dir.string()));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("(Softmax)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("stream axis 2 (S)"), std::string::npos) << r.output;
  // Softmax over the other axis streams.
  std::ofstream(dir / "graph.nnef") << "version 1.0;\nextension tract_symbol S;\n"
                                       "graph g(input) -> (output) {\n"
                                       "  input = external<scalar>(shape = [1, 4, S]);\n"
                                       "  output = softmax(input, axes = [1]);\n}\n";
  r = testing::run_kiln(fmt::format("dump {} --pulse 8", dir.string()));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  fs::remove_all(dir);
}

TEST(PulseCli, BadPulseOptions) {
  fs::path dir = model_dir("crnn_stream");
  if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << dir << " not present";
  auto r = testing::run_kiln(fmt::format("dump {} --pulse 3", (dir / "model.onnx").string()));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("P must be a multiple of 2"), std::string::npos) << r.output;
  r = testing::run_kiln(fmt::format("dump {} --pulse X=4", (dir / "model.onnx").string()));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("no input fact uses the symbol 'X'"), std::string::npos) << r.output;
  r = testing::run_kiln(fmt::format("dump {} --pulse 0", (dir / "model.onnx").string()));
  EXPECT_EQ(r.exit_code, 1);
}

}  // namespace
}  // namespace kiln
