// kiln convert --nnef-strict on the shared float models (docs/nnef.md "Shared models"): every
// model but tiny_bert converts to standard NNEF only -- LSTMs and GRUs unrolled, symbolic time
// axes given with -i -- and the archive runs to the reference outputs; tiny_bert is refused
// naming Gelu, whose erf has no standard form.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/cli/run_kiln.h"

namespace {

namespace fs = std::filesystem;
using kiln::testing::run_kiln_command;

struct StrictModel {
  const char* name;
  const char* facts;
};

const StrictModel kStrictModels[] = {
    {"mobilenet_v2", ""},
    {"squeezenet1_1", ""},
    {"kws_tdnn", ""},
    {"lstm_kws", ""},
    {"silero_vad_v4", "-i input:1,1536,f32 -i sr:i64=16000 -i h:2,1,64,f32 -i c:2,1,64,f32"},
    {"silero_vad_v5", "-i input:1,576,f32 -i sr:i64=16000 -i state:2,1,128,f32"},
    {"wavenet_kws", "-i input:1,40,200,f32"},
    {"tdnn_stream", "-i input:1,40,200,f32"},
    {"conv2d_stream", "-i input:1,1,200,40,f32"},
    {"crnn_stream", "-i input:1,200,40,f32"},
};

TEST(StrictModels, ConvertToStandardNnefAndRunToTheReferences) {
  auto root = kiln::testing::shared_models_dir();
  if (root.empty()) GTEST_SKIP() << "shared models not present";
  fs::path tmp = fs::temp_directory_path() / ("kiln_strict_models_" + std::to_string(::getpid()));
  fs::create_directories(tmp);
  for (const auto& m : kStrictModels) {
    fs::path dir = root / m.name;
    if (!fs::exists(dir / "model.onnx")) continue;
    SCOPED_TRACE(m.name);
    std::string out = (tmp / (std::string(m.name) + ".nnef.tgz")).string();
    auto r = run_kiln_command("convert " + (dir / "model.onnx").string() + " " + out +
                              " --nnef-strict " + m.facts);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("standard NNEF ops only"), std::string::npos) << r.out;
    auto text = run_kiln_command("dump " + out + " --nnef-graph -");
    EXPECT_EQ(text.out.find("extension"), std::string::npos);
    std::string bundle = (dir / "test_data_set_0").string();
    r = run_kiln_command("run " + out + " --input-bundle " + bundle + " --assert-output-bundle " +
                         bundle);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  }
  fs::path bert = root / "tiny_bert" / "model.onnx";
  if (fs::exists(bert)) {
    auto r = run_kiln_command("convert " + bert.string() + " " + (tmp / "bert.nnef.tgz").string() +
                              " --nnef-strict");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("these ops:\n  Gelu\n"), std::string::npos) << r.err;
  }
  // A symbolic time axis needs -i under --nnef-strict, and says so.
  fs::path wavenet = root / "wavenet_kws" / "model.onnx";
  if (fs::exists(wavenet)) {
    auto r = run_kiln_command("convert " + wavenet.string() + " " + (tmp / "w.nnef.tgz").string() +
                              " --nnef-strict");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("symbolic dims (S)"), std::string::npos) << r.err;
  }
  fs::remove_all(tmp);
}

}  // namespace
