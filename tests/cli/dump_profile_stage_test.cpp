// kiln dump --profile times what `kiln run` executes (the optimize stage) and says so; --stage
// typed keeps the reference graph and says it is not what kiln run executes; --cost alone keeps
// dump's typed default. Reference nodes are flagged in the profile.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/cli/run_kiln.h"

namespace {

using kiln::testing::run_kiln_command;
using nlohmann::json;

std::string model_path(const std::string& name) {
  auto dir = kiln::testing::shared_models_dir();
  if (dir.empty() || !std::filesystem::exists(dir / name / "model.onnx")) return {};
  return (dir / name / "model.onnx").string();
}

TEST(DumpProfileStage, ProfilesWhatRunExecutesAndSaysSo) {
  std::string model = model_path("kws_tdnn");
  if (model.empty()) GTEST_SKIP() << "shared models not present";
  auto r = run_kiln_command("dump " + model + " --profile --runs 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Stage: optimize (what kiln run executes; --stage typed profiles the "
                       "reference graph)"),
            std::string::npos)
      << r.out;
  // The same nodes as kiln profile (optimize), not the typed graph's.
  auto dump = json::parse(run_kiln_command("dump " + model + " --profile --runs 2 --json").out);
  auto profile = json::parse(run_kiln_command("profile " + model + " --runs 2 --json").out);
  auto typed = json::parse(run_kiln_command("dump " + model + " --cost --json").out);
  EXPECT_EQ(dump["stage"], "optimize");
  EXPECT_EQ(typed["stage"], "typed");
  ASSERT_EQ(dump["nodes"].size(), profile["nodes"].size());
  for (size_t i = 0; i < dump["nodes"].size(); i++)
    EXPECT_EQ(dump["nodes"][i]["op"], profile["nodes"][i]["op"]);
  EXPECT_LT(dump["nodes"].size(), typed["nodes"].size());  // fused and folded
  // The typed graph still runs its reference ops, and says it is not what kiln run executes.
  r = run_kiln_command("dump " + model + " --profile --stage typed --runs 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Stage: typed -- NOT what kiln run executes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[reference]"), std::string::npos) << r.out;
}

TEST(DumpProfileStage, ReferenceNodesAreCounted) {
  std::string model = model_path("kws_tdnn");
  if (model.empty()) GTEST_SKIP() << "shared models not present";
  auto typed = json::parse(run_kiln_command("dump " + model + " --cost --json").out);
  int refs = 0, convs = 0;
  for (const auto& n : typed["nodes"]) {
    refs += n["reference"].get<bool>();
    convs += n["op"] == "Conv";
    if (n["op"] == "Conv") {
      EXPECT_TRUE(n["reference"].get<bool>()) << n.dump();
    }
  }
  EXPECT_GT(convs, 0);
  EXPECT_EQ(typed["reference_nodes"], refs);
  // Optimized, every Conv is a kernel: none left running the reference.
  auto opt = json::parse(run_kiln_command("profile " + model + " --runs 1 --json").out);
  for (const auto& n : opt["nodes"])
    if (n["op"].get<std::string>().find("ConvPacked") != std::string::npos) {
      EXPECT_FALSE(n["reference"].get<bool>()) << n.dump();
      EXPECT_TRUE(n.contains("kernel")) << n.dump();
    }
}

}  // namespace
