// kiln convert and NNEF models through the CLI: determinism, --nnef-strict, hostile archives.
#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "tests/cli/run_kiln.h"

namespace {

using kiln::testing::CommandResult;
using kiln::testing::run_kiln;

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

fs::path model_dir(const std::string& name) {
  fs::path dir = fs::path(KILN_SOURCE_DIR) / ".." / "shared" / "models" / name;
  if (!fs::exists(dir)) dir = fs::path(KILN_SOURCE_DIR) / ".." / ".." / "shared" / "models" / name;
  return dir;
}

class ConvertCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kiln_convert_cli_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(ConvertCli, ConvertTwiceGivesTheSameBytesAndTheModelRuns) {
  fs::path m = model_dir("kws_tdnn");
  if (!fs::exists(m / "model.onnx")) GTEST_SKIP() << "shared models not present";
  std::string a = (dir_ / "a.nnef.tgz").string(), b = (dir_ / "b.nnef.tgz").string();
  auto r = run_kiln("convert " + (m / "model.onnx").string() + " " + a);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("standard NNEF ops only"), std::string::npos) << r.output;
  ASSERT_EQ(run_kiln("convert " + (m / "model.onnx").string() + " " + b).exit_code, 0);
  EXPECT_EQ(slurp(a), slurp(b));
  std::string bundle = (m / "test_data_set_0").string();
  r = run_kiln("run " + a + " --input-bundle " + bundle + " --assert-output-bundle " + bundle);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  // A directory output holds the same files.
  std::string d = (dir_ / "out_dir").string();
  ASSERT_EQ(run_kiln("convert " + (m / "model.onnx").string() + " " + d).exit_code, 0);
  EXPECT_TRUE(fs::exists(fs::path(d) / "graph.nnef"));
  r = run_kiln("dump " + d + " --nnef-graph -");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, slurp(fs::path(d) / "graph.nnef"));
}

TEST_F(ConvertCli, StrictListsTheOpsNeedingExtensions) {
  // tiny_bert's Gelu (erf) has no exact standard form (lstm_kws converts: its LSTMs unroll).
  fs::path m = model_dir("tiny_bert");
  if (!fs::exists(m / "model.onnx")) GTEST_SKIP() << "shared models not present";
  std::string out = (dir_ / "x.nnef.tgz").string();
  auto r = run_kiln("convert " + (m / "model.onnx").string() + " " + out + " --nnef-strict");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("needs NNEF extensions for these ops:\n  Gelu"), std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(out));
  r = run_kiln("convert " + (m / "model.onnx").string() + " " + out + " --json");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("\"standard_only\": false"), std::string::npos) << r.output;
  r = run_kiln("convert " + (m / "model.onnx").string() + " " + out + " -O");
  EXPECT_EQ(r.exit_code, 1) << r.output;
}

TEST_F(ConvertCli, HostileArchivesAreCleanErrors) {
  auto make = [&](const std::string& file, const std::string& entry, const std::string& data,
                  bool gzip) {
    std::string path = (dir_ / file).string();
    archive* a = archive_write_new();
    archive_write_set_format_pax_restricted(a);
    if (gzip) archive_write_add_filter_gzip(a);
    archive_write_open_filename(a, path.c_str());
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, entry.c_str());
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_size(e, int64_t(data.size()));
    archive_write_header(a, e);
    archive_write_data(a, data.data(), data.size());
    archive_entry_free(e);
    archive_write_close(a);
    archive_write_free(a);
    return path;
  };
  auto r = run_kiln("dump " + make("up.nnef.tgz", "../kiln_convert_escape", "x", true));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("escapes the archive"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_.parent_path() / "kiln_convert_escape"));
  r = run_kiln("dump " + make("abs.nnef.tar", "/tmp/kiln_cli_evil", "x", false));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_FALSE(fs::exists("/tmp/kiln_cli_evil"));
  r = run_kiln("dump " +
               make("syntax.nnef.tgz", "graph.nnef", "graph g( x ) -> ( y )\n{\n  y = ;\n}", true));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("graph.nnef:3:7: expected an expression"), std::string::npos) << r.output;
  std::string good =
      make("ok.nnef.tgz", "graph.nnef",
           "graph g( x ) -> ( y ) { x = external(shape = [2]); y = relu(x); }", true);
  std::string bytes = slurp(good);
  std::ofstream(dir_ / "cut.nnef.tgz", std::ios::binary) << bytes.substr(0, bytes.size() - 20);
  r = run_kiln("dump " + (dir_ / "cut.nnef.tgz").string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  r = run_kiln("dump " + good);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Relu"), std::string::npos) << r.output;
}

}  // namespace
