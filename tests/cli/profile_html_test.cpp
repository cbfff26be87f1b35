// kiln profile --html: one self-contained page embedding the same document --json prints, with
// nothing to fetch; and (when Chromium is installed) the page rendered in headless Chromium:
// no console error, no request, one table row per node (tests/cli/html_report_browser_test.sh).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "tests/cli/run_kiln.h"

namespace {

namespace fs = std::filesystem;
using kiln::testing::run_kiln_command;
using nlohmann::json;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The JSON document the page embeds (the #kiln-data script element).
json embedded_data(const std::string& page) {
  const std::string open = "<script id=\"kiln-data\" type=\"application/json\">";
  size_t start = page.find(open);
  EXPECT_NE(start, std::string::npos);
  start += open.size();
  size_t end = page.find("</script>", start);
  return json::parse(page.substr(start, end - start));
}

TEST(ProfileHtml, SelfContainedPageWithTheJsonData) {
  auto root = kiln::testing::shared_models_dir();
  if (root.empty()) GTEST_SKIP() << "shared models not present";
  std::string model = (root / "kws_tdnn" / "model.onnx").string();
  fs::path html =
      fs::temp_directory_path() / ("kiln_profile_" + std::to_string(::getpid()) + ".html");
  auto r = run_kiln_command("profile " + model + " --runs 3 --html " + html.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("HTML report: " + html.string()), std::string::npos) << r.out;
  std::string page = slurp(html);
  fs::remove(html);
  // Nothing to fetch: no src= at all, links only to data: URIs, a CSP forbidding the rest.
  EXPECT_EQ(page.find("src="), std::string::npos);
  std::regex href(R"re(href="([^"]*)")re");
  for (std::sregex_iterator it(page.begin(), page.end(), href), end; it != end; ++it)
    EXPECT_EQ((*it)[1].str().rfind("data:", 0), 0u) << (*it)[0];
  EXPECT_NE(page.find("default-src 'none'"), std::string::npos);
  EXPECT_EQ(page.find("@import"), std::string::npos);
  EXPECT_EQ(page.find("url("), std::string::npos);
  json doc = embedded_data(page);
  for (const char* key : {"nodes", "by_op", "timeline", "memory", "cpu", "isa", "threads",
                          "reference_nodes", "total_ms"})
    EXPECT_TRUE(doc.contains(key)) << key;
  // One timeline event per node evaluated in one run; the memory plan's values stay inside
  // the arena and in the plan's steps.
  size_t steps = doc["memory"]["order"].size();
  EXPECT_EQ(doc["timeline"]["events"].size(), doc["nodes"].size());
  ASSERT_FALSE(doc["memory"]["plan"].empty());
  for (const auto& v : doc["memory"]["plan"]) {
    EXPECT_LE(v["offset"].get<size_t>() + v["bytes"].get<size_t>(),
              doc["memory"]["arena_bytes"].get<size_t>());
    EXPECT_LE(v["first_step"].get<int>(), v["last_step"].get<int>());
    EXPECT_LT(v["last_step"].get<size_t>(), steps);
  }
  // Two values alive at the same step never overlap in the arena.
  const auto& plan = doc["memory"]["plan"];
  for (size_t i = 0; i < plan.size(); i++)
    for (size_t j = i + 1; j < plan.size(); j++) {
      const auto &a = plan[i], &b = plan[j];
      bool same_time = a["first_step"] <= b["last_step"] && b["first_step"] <= a["last_step"];
      bool apart =
          a["offset"].get<size_t>() + a["bytes"].get<size_t>() <= b["offset"].get<size_t>() ||
          b["offset"].get<size_t>() + b["bytes"].get<size_t>() <= a["offset"].get<size_t>();
      EXPECT_TRUE(!same_time || apart) << a.dump() << " " << b.dump();
    }
  for (const auto& n : doc["nodes"]) EXPECT_TRUE(n.contains("reference")) << n.dump();
}

TEST(ProfileHtml, ModelNamesCannotBreakOutOfTheScript) {
  // The page embeds strings from the model (names, paths): '<' and '>' are escaped inside the
  // JSON, so "</script>" in a name cannot end the element. A model path with such characters:
  auto root = kiln::testing::shared_models_dir();
  if (root.empty()) GTEST_SKIP() << "shared models not present";
  fs::path dir =
      fs::temp_directory_path() / ("kiln_html_</script><b>_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::copy_file(root / "kws_tdnn" / "model.onnx", dir / "model.onnx");
  fs::path html = dir / "r.html";
  auto r = run_kiln_command("profile '" + (dir / "model.onnx").string() + "' --runs 1 --html '" +
                            html.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string page = slurp(html);
  EXPECT_EQ(page.find("</script><b>"), std::string::npos);
  EXPECT_EQ(embedded_data(page)["model"], (dir / "model.onnx").string());
  fs::remove_all(dir);
}

TEST(ProfileHtml, UnwritablePathIsAClearError) {
  auto root = kiln::testing::shared_models_dir();
  if (root.empty()) GTEST_SKIP() << "shared models not present";
  auto r = run_kiln_command("profile " + (root / "kws_tdnn" / "model.onnx").string() +
                            " --runs 1 --html /nonexistent/dir/r.html");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--html /nonexistent/dir/r.html: cannot write"), std::string::npos) << r.err;
}

TEST(ProfileHtml, RendersInHeadlessChromium) {
  auto root = kiln::testing::shared_models_dir();
  if (root.empty()) GTEST_SKIP() << "shared models not present";
  if (std::string(KILN_BINARY).find(' ') != std::string::npos)
    GTEST_SKIP() << "SKIPPED: kiln runs under an emulator here; no browser test";
  std::string script = std::string(KILN_SOURCE_DIR) + "/tests/cli/html_report_browser_test.sh";
  // Screenshots are kept as artifacts next to the kiln binary.
  fs::path out = fs::path(KILN_BINARY).parent_path() / "artifacts" / "html_report";
  std::string cmd =
      "bash " + script + " " + KILN_BINARY + " " + root.string() + " " + out.string() + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string output;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) output.append(buf, n);
  int status = pclose(pipe);
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == 77) GTEST_SKIP() << output;
  EXPECT_EQ(code, 0) << output;
  std::printf("%s", output.c_str());
  for (const char* m : {"mobilenet_v2", "tiny_bert"})
    EXPECT_TRUE(fs::exists(out / (std::string(m) + ".png"))) << m;
}

}  // namespace
