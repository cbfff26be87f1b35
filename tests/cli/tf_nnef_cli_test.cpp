// `kiln convert` of a TensorFlow keyword spotter to NNEF, then `kiln run` of the archive on the
// bytes of silence.wav: the same top labels and probabilities as running the .pb.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <unistd.h>

#include "tests/cli/run_kiln.h"

namespace {

namespace fs = std::filesystem;
using kiln::testing::run_kiln;

using kiln::testing::kws_dir;

TEST(TfNnefCli, ConvertedKeywordSpotterRunsLikeTheGraph) {
  fs::path kws = kws_dir();
  if (kws.empty()) GTEST_SKIP() << "tf-ml-kws models not present";
  // One folder per process: the NEON and generic unit runs may run this test at the same time.
  fs::path dir = fs::temp_directory_path() / ("kiln_tf_nnef_cli_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string archive = (dir / "gru.nnef.tgz").string();
  auto conv = run_kiln("convert " + (kws / "GRU_S.pb").string() + " " + archive);
  ASSERT_EQ(conv.exit_code, 0) << conv.output;
  EXPECT_NE(conv.output.find("AudioSpectrogram, DecodeWav"), std::string::npos) << conv.output;
  EXPECT_NE(conv.output.find("Loop"), std::string::npos) << conv.output;

  const std::string args = " --input wav_data=@" + (kws / "silence.wav").string() + " --labels " +
                           (kws / "labels.txt").string() + " --top 3";
  auto tf = run_kiln("run " + (kws / "GRU_S.pb").string() + args, false);
  auto nnef = run_kiln("run " + archive + args, false);
  ASSERT_EQ(tf.exit_code, 0) << tf.output;
  ASSERT_EQ(nnef.exit_code, 0) << nnef.output;
  EXPECT_NE(nnef.output.find("1. _silence_"), std::string::npos) << nnef.output;
  EXPECT_EQ(nnef.output, tf.output);
  fs::remove_all(dir);
}

}  // namespace
