// kiln profile and kiln dump --cost/--profile through the CLI: the numbers must add up (node
// times vs whole network, FMA per node vs totals, per-op summary vs nodes), the JSON schema,
// the Chrome trace, and the shared models' FMA totals.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "tests/cli/run_kiln.h"

namespace {

namespace fs = std::filesystem;
using kiln::testing::run_kiln_command;
using nlohmann::json;

std::string model_path(const std::string& name) {
  auto dir = kiln::testing::shared_models_dir();
  if (dir.empty() || !fs::exists(dir / name / "model.onnx")) return {};
  return (dir / name / "model.onnx").string();
}

#define REQUIRE_MODEL(var, name)                                       \
  std::string var = model_path(name);                                  \
  if (var.empty()) GTEST_SKIP() << name << " not in ../shared/models"; \
  do {                                                                 \
  } while (0)

json profile_json(const std::string& args) {
  auto r = run_kiln_command(args);
  EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
  return json::parse(r.out);
}

TEST(ProfileCommand, JsonSchemaAndTotalsAddUp) {
  REQUIRE_MODEL(model, "kws_tdnn");
  json doc = profile_json("profile " + model + " --runs 3 --json");
  for (const char* key :
       {"nodes", "total_ms", "total_fma", "by_op", "memory", "runs", "accounted_percent"})
    ASSERT_TRUE(doc.contains(key)) << key;
  EXPECT_EQ(doc["runs"], 3);
  ASSERT_FALSE(doc["nodes"].empty());
  double node_ms = 0;
  int64_t fma = 0;
  std::map<std::string, int> nodes_per_op;
  for (const auto& n : doc["nodes"]) {
    for (const char* key : {"name", "op", "ms", "percent", "fma", "gflops", "output_shapes"})
      ASSERT_TRUE(n.contains(key)) << key << " in " << n.dump();
    EXPECT_TRUE(n["output_shapes"].is_array() && !n["output_shapes"].empty());
    EXPECT_TRUE(n["cost_known"].get<bool>()) << n.dump();
    node_ms += n["ms"].get<double>();
    fma += n["fma"].get<int64_t>();
    nodes_per_op[n["op"]]++;
    if (n["fma"].get<int64_t>() > 0 && n["ms"].get<double>() > 0) {
      EXPECT_NEAR(n["gflops"].get<double>(),
                  2.0 * n["fma"].get<double>() / (n["ms"].get<double>() * 1e6),
                  1e-6 * n["gflops"].get<double>());
    }
  }
  // Acceptance: kws_tdnn is 50,689,536 FMA (Conv + Gemm).
  EXPECT_EQ(doc["total_fma"], 50689536);
  EXPECT_EQ(fma, 50689536);
  double total = doc["total_ms"];
  EXPECT_NEAR(doc["accounted_ms"].get<double>(), node_ms, 1e-6 * total);
  // Node times are measured inside the whole-network time: never more, and most of it.
  EXPECT_LE(node_ms, total * 1.0001);
  EXPECT_GE(node_ms, total * 0.85);
  double by_op_ms = 0;
  int64_t by_op_fma = 0;
  for (const auto& o : doc["by_op"]) {
    EXPECT_EQ(o["nodes"], nodes_per_op[o["op"]]) << o.dump();
    EXPECT_EQ(o["calls"], o["nodes"].get<int>() * 3);
    by_op_ms += o["ms"].get<double>();
    by_op_fma += o["fma"].get<int64_t>();
  }
  EXPECT_NEAR(by_op_ms, node_ms, 1e-9 + 1e-9 * node_ms);
  EXPECT_EQ(by_op_fma, fma);
  // Sorted, most time consuming first.
  for (size_t i = 1; i < doc["by_op"].size(); i++)
    EXPECT_GE(doc["by_op"][i - 1]["ms"].get<double>(), doc["by_op"][i]["ms"].get<double>());
  EXPECT_GT(doc["memory"]["weights_bytes"].get<int64_t>(), 2000000);  // ~2 MB of f32 weights
  EXPECT_GT(doc["memory"]["activation_bytes"].get<int64_t>(), 0);
  EXPECT_GT(doc["memory"]["peak_rss_bytes"].get<int64_t>(),
            doc["memory"]["weights_bytes"].get<int64_t>());
  // The memory plan: the planned values share one arena whose slots are reused, so it is
  // smaller than their sum (which is at most the sum of every node output).
  const json& mem = doc["memory"];
  for (const char* key :
       {"arena_bytes", "planned_values", "planned_bytes", "outputs_bytes", "scratch_bytes"})
    ASSERT_TRUE(mem.contains(key)) << key;
  EXPECT_GT(mem["planned_values"].get<int64_t>(), 2);
  EXPECT_GT(mem["arena_bytes"].get<int64_t>(), 0);
  EXPECT_LT(mem["arena_bytes"].get<int64_t>(), mem["planned_bytes"].get<int64_t>());
  EXPECT_LE(mem["planned_bytes"].get<int64_t>(), mem["outputs_bytes"].get<int64_t>());
}

TEST(ProfileCommand, SharedModelFmaTotals) {
  // Costs only (no run): dump --cost --json.
  std::vector<std::pair<std::string, int64_t>> expected = {
      {"mobilenet_v2", 300774272}, {"kws_tdnn", 50689536}, {"lstm_kws", 21710336}};
  for (const auto& [name, fma] : expected) {
    std::string model = model_path(name);
    if (model.empty()) continue;
    json doc = profile_json("dump " + model + " --cost --json");
    EXPECT_EQ(doc["total_fma"], fma) << name;
    EXPECT_TRUE(doc["unknown_cost_nodes"].empty()) << name;
    if (name == "lstm_kws") {
      int64_t lstm = 0;
      for (const auto& n : doc["nodes"])
        if (n["op"] == "LSTM") lstm += n["fma"].get<int64_t>();
      EXPECT_EQ(lstm, 21708800);  // both layers, all 100 time steps
    }
  }
}

// Numbers printed in the text report.
struct TextReport {
  std::vector<double> node_ms, node_percent;
  int64_t node_fma = 0;
  int64_t total_fma = -1;
  double entire_ms = -1, accounted_ms = -1, accounted_percent = -1;
  double by_op_ms = 0;
};

TextReport parse_text(const std::string& out) {
  TextReport t;
  std::istringstream in(out);
  std::string line;
  std::regex node_re(R"(^\s*([0-9.]+) ms/i\s+([0-9.]+)%\s+(.*))");
  std::regex fma_re(R"(FMA\(f32\) (\d+))");
  std::regex total_re(R"(^\s*FMA\(f32\): (\d+))");
  std::regex entire_re(R"(Entire network performance: ([0-9.]+) ms/i)");
  std::regex accounted_re(R"(Accounted by ops: ([0-9.]+) ms/i, ([0-9.]+)%)");
  std::regex by_op_re(R"(^\s+[A-Za-z][A-Za-z0-9_+.:-]*\s+\d+\s+\d+\s+([0-9.]+)\s+[0-9.]+%)");
  bool in_by_op = false;
  std::smatch m;
  while (std::getline(in, line)) {
    if (line.rfind("Most time consuming", 0) == 0) in_by_op = true;
    if (line.empty()) in_by_op = false;
    if (std::regex_search(line, m, node_re)) {
      t.node_ms.push_back(std::stod(m[1]));
      t.node_percent.push_back(std::stod(m[2]));
      std::string rest = m[3];
      if (std::regex_search(rest, m, fma_re)) t.node_fma += std::stoll(m[1]);
    } else if (in_by_op && std::regex_search(line, m, by_op_re)) {
      t.by_op_ms += std::stod(m[1]);
    } else if (std::regex_search(line, m, total_re)) {
      t.total_fma = std::stoll(m[1]);
    } else if (std::regex_search(line, m, entire_re)) {
      t.entire_ms = std::stod(m[1]);
    } else if (std::regex_search(line, m, accounted_re)) {
      t.accounted_ms = std::stod(m[1]);
      t.accounted_percent = std::stod(m[2]);
    }
  }
  return t;
}

void expect_text_adds_up(const std::string& out, int64_t fma) {
  TextReport t = parse_text(out);
  ASSERT_FALSE(t.node_ms.empty()) << out;
  double sum_ms = 0, sum_percent = 0;
  for (double v : t.node_ms) sum_ms += v;
  for (double v : t.node_percent) sum_percent += v;
  double rounding = 0.0005 * static_cast<double>(t.node_ms.size()) + 0.0005;
  EXPECT_NEAR(sum_ms, t.accounted_ms, rounding) << out;
  EXPECT_NEAR(t.by_op_ms, t.accounted_ms, rounding) << out;
  EXPECT_NEAR(sum_percent, t.accounted_percent,
              0.05 * static_cast<double>(t.node_ms.size()) + 0.05);
  // The percentage is printed to 0.1 (±0.05) from unrounded times; both times are printed to
  // 0.001 ms (±0.0005 each), which moves their ratio by up to 100·0.001/entire percent.
  EXPECT_NEAR(t.accounted_ms / t.entire_ms * 100, t.accounted_percent,
              0.05 + 100 * 0.001 / t.entire_ms + 1e-9)
      << out;
  EXPECT_LE(t.accounted_ms, t.entire_ms + 0.001);
  EXPECT_EQ(t.node_fma, fma) << out;
  EXPECT_EQ(t.total_fma, fma) << out;
}

TEST(ProfileCommand, TextReportAddsUp) {
  REQUIRE_MODEL(model, "kws_tdnn");
  auto r = run_kiln_command("profile " + model + " --runs 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_text_adds_up(r.out, 50689536);
  EXPECT_NE(r.out.find("Most time consuming operations"), std::string::npos);
  EXPECT_NE(r.out.find("every node has a cost model"), std::string::npos);
  EXPECT_NE(r.out.find("peak RSS"), std::string::npos);
  EXPECT_NE(r.out.find("arena (memory plan, reused slots)"), std::string::npos);
  EXPECT_NE(r.out.find("Inputs: random inputs"), std::string::npos);
}

TEST(ProfileCommand, DumpCostProfileAddsUp) {
  REQUIRE_MODEL(model, "lstm_kws");
  auto r = run_kiln_command("dump " + model + " --cost --profile --runs 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_text_adds_up(r.out, 21710336);
  EXPECT_NE(r.out.find("GF/s"), std::string::npos);
}

TEST(ProfileCommand, DumpCostWithoutRunning) {
  REQUIRE_MODEL(model, "mobilenet_v2");
  auto r = run_kiln_command("dump " + model + " --cost");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  TextReport t = parse_text(r.out);
  EXPECT_TRUE(t.node_ms.empty());  // nothing timed
  EXPECT_EQ(t.total_fma, 300774272);
  int64_t per_node = 0;
  std::regex fma_re(R"(FMA\(f32\) (\d+) )");
  for (std::sregex_iterator it(r.out.begin(), r.out.end(), fma_re), end; it != end; ++it)
    per_node += std::stoll((*it)[1]);
  EXPECT_EQ(per_node, 300774272);
  EXPECT_EQ(r.out.find("Entire network performance"), std::string::npos);
}

TEST(ProfileCommand, TraceHasOneCompleteEventPerNodePerRun) {
  REQUIRE_MODEL(model, "kws_tdnn");
  std::string trace =
      (fs::temp_directory_path() / ("kiln_trace_" + std::to_string(::getpid()) + ".json")).string();
  json doc = profile_json("profile " + model + " --runs 3 --json --trace " + trace);
  std::ifstream in(trace);
  ASSERT_TRUE(in) << trace;
  json t = json::parse(in);
  fs::remove(trace);
  ASSERT_TRUE(t.contains("traceEvents") && t["traceEvents"].is_array());
  size_t nodes = doc["nodes"].size();
  EXPECT_EQ(t["traceEvents"].size(), nodes * 3);
  std::map<std::pair<int, int>, int> seen;  // (run, node) -> count
  double last_start = -1;
  for (const auto& e : t["traceEvents"]) {
    EXPECT_EQ(e["ph"], "X");
    EXPECT_TRUE(e["name"].is_string());
    EXPECT_TRUE(e["ts"].is_number() && e["dur"].is_number());
    EXPECT_GE(e["dur"].get<double>(), 0);
    EXPECT_GE(e["ts"].get<double>(), last_start - 1e-3);  // in time order
    last_start = e["ts"].get<double>();
    seen[{e["args"]["run"].get<int>(), e["args"]["node"].get<int>()}]++;
  }
  EXPECT_EQ(seen.size(), nodes * 3);
  for (const auto& [key, count] : seen) EXPECT_EQ(count, 1);
}

// Nodes inside If branches and Loop bodies get their own rows (`body_nodes` in JSON, indented
// in text, events in the trace): their times fit inside their top-level node's, and a Loop
// body's nodes run once per iteration.
TEST(ProfileCommand, BodyNodesHaveTheirOwnRows) {
  // Silero VAD v5 without -i facts: its If picks the 16 kHz branch at run time.
  const std::string dir = std::string(KILN_SOURCE_DIR) + "/examples/silero_vad_v5";
  const std::string trace =
      (fs::temp_directory_path() / ("kiln_body_trace_" + std::to_string(::getpid()) + ".json"))
          .string();
  json doc = profile_json("profile " + dir + "/model.onnx --input-bundle " + dir +
                          "/test_data_set_0 --runs 3 --json --trace " + trace);
  std::map<int, json> top;
  for (const auto& n : doc["nodes"]) top[n["id"].get<int>()] = n;
  ASSERT_TRUE(doc.contains("body_nodes"));
  ASSERT_GE(doc["body_nodes"].size(), 5u);
  std::map<int, double> body_ms;  // top node -> its depth-1 body nodes' time
  std::set<std::string> ops;
  for (const auto& b : doc["body_nodes"]) {
    const int t = b["top_node"].get<int>();
    ASSERT_TRUE(top.count(t)) << b.dump();
    EXPECT_EQ(top[t]["op"], "If") << b.dump();
    EXPECT_EQ(b["calls_per_run"].get<double>(), 1.0) << b.dump();  // the branch, once per run
    if (b["depth"] == 1) body_ms[t] += b["ms"].get<double>();
    ops.insert(b["op"].get<std::string>());
  }
  for (const auto& [t, ms] : body_ms) {
    const double if_ms = top[t]["ms"].get<double>();
    EXPECT_LE(ms, if_ms * 1.0001) << t;
    EXPECT_GE(ms, if_ms * 0.5) << t;  // the branch's nodes are most of the If
  }
  // The branch runs optimized kernels: its convolutions are packed.
  EXPECT_TRUE(ops.count("ConvPacked")) << doc["body_nodes"].dump();
  std::ifstream in(trace);
  ASSERT_TRUE(in) << trace;
  json t = json::parse(in);
  fs::remove(trace);
  size_t body_events = 0;
  for (const auto& e : t["traceEvents"]) body_events += e["args"].contains("body") ? 1 : 0;
  EXPECT_EQ(body_events, doc["body_nodes"].size() * 3);

  auto text = run_kiln_command("profile " + dir + "/model.onnx --input-bundle " + dir +
                               "/test_data_set_0 --runs 2");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find(" calls/run, "), std::string::npos) << text.out;
}

TEST(ProfileCommand, LoopBodyNodesCountIterations) {
  // ONNX's test_loop11: trip count 5.
  const std::string dir = "/usr/share/libonnx-testdata/data/node/test_loop11";
  if (!fs::exists(dir)) GTEST_SKIP() << dir << " missing";
  json doc = profile_json("profile " + dir + "/model.onnx --input-bundle " + dir +
                          "/test_data_set_0 --runs 4 --json");
  ASSERT_FALSE(doc["body_nodes"].empty());
  bool add = false;
  for (const auto& b : doc["body_nodes"]) {
    EXPECT_EQ(b["calls_per_run"].get<double>(), 5.0) << b.dump();
    add = add || b["op"].get<std::string>().find("Add") != std::string::npos;
  }
  EXPECT_TRUE(add) << doc["body_nodes"].dump();
}

TEST(ProfileCommand, SymbolicCostsWithoutInputs) {
  REQUIRE_MODEL(model, "lstm_kws");
  // Sequence length left symbolic: the LSTM cost is proportional to it.
  auto r = run_kiln_command("dump " + model + " -i 1,T,40,f32 --cost --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  std::vector<std::string> lstm;
  for (const auto& n : doc["nodes"])
    if (n["op"] == "LSTM") lstm.push_back(n["fma"].get<std::string>());
  ASSERT_EQ(lstm.size(), 2u);
  EXPECT_EQ(lstm[0], "86016*T");
  EXPECT_EQ(lstm[1], "131072*T");
  EXPECT_TRUE(doc["total_fma"].is_string());
  auto text = run_kiln_command("dump " + model + " -i 1,T,40,f32 --cost");
  EXPECT_NE(text.out.find("FMA(f32) 86016*T"), std::string::npos) << text.out;
}

TEST(ProfileCommand, BadTracePathIsAnError) {
  REQUIRE_MODEL(model, "kws_tdnn");
  auto r = run_kiln_command("profile " + model + " --runs 1 --trace /nonexistent/dir/t.json");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--trace /nonexistent/dir/t.json"), std::string::npos) << r.err;
}

}  // namespace
