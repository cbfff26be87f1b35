// Golden tests for the passes: a small model written in ONNX's text syntax goes through the
// pipeline to a stage, and the result, printed one compute node per line, must equal the
// expected text. Each tests/passes/golden/*.golden file holds:
//   stage: declutter            (or optimize, without the CPU-dependent codegen pass)
//   facts: name:1,3,f32 ...     (optional -i style input facts, space-separated)
//   --- model
//   <ONNX text: <ir_version: 8, opset_import: ["" : 13]> graph (...) => (...) {...}>
//   --- expected
//   <one line per compute node: "name = Op(inputs) attributes", see graph_text()>
// The outputs are also checked against the typed model's on random inputs.
#include <gtest/gtest.h>
#include <onnx/defs/parser.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "base/error.h"
#include "core/source_ops.h"
#include "io/onnx/onnx_loader.h"
#include "pass_test_util.h"
#include "passes/pipeline.h"

using namespace kiln;

namespace {

namespace fs = std::filesystem;

// "name = Op(input, input) k=v": inputs by node name, constants as #shape,type.
std::string graph_text(const Graph& g) {
  std::string out;
  for (const auto& n : g.nodes()) {
    if (is_source_or_const(n)) continue;
    std::string line = n.name + " = " + n.op->name() + "(";
    for (size_t i = 0; i < n.inputs.size(); i++) {
      if (i) line += ", ";
      Outlet in = n.inputs[i];
      if (!in.present()) {
        line += "_";
      } else if (dynamic_cast<const ConstOp*>(g.node(in.node).op.get())) {
        line += "#" + g.fact(in).to_string();
      } else {
        line += g.node(in.node).name + (in.slot ? ":" + std::to_string(in.slot) : "");
      }
    }
    line += ")";
    // Which micro-kernel and path codegen picked depends on the CPU: not part of the text.
    for (const auto& [k, v] : n.op->attributes())
      line += " " + k + "=" + (k == "kernel" || k == "path" ? std::string("*") : v);
    out += line + "\n";
  }
  for (size_t i = 0; i < g.outputs().size(); i++) {
    Outlet o = g.outputs()[i];
    out += "output " + g.output_names()[i] + " = " + g.node(o.node).name +
           (o.slot ? ":" + std::to_string(o.slot) : "") + "\n";
  }
  return out;
}

struct GoldenCase {
  std::string stage = "declutter";
  std::vector<std::string> facts;
  std::string model, expected;
};

GoldenCase read_case(const fs::path& path) {
  std::ifstream in(path);
  GoldenCase c;
  std::string line, section;
  while (std::getline(in, line)) {
    if (line.rfind("--- ", 0) == 0) {
      section = line.substr(4);
      continue;
    }
    if (section.empty()) {
      if (line.rfind("stage:", 0) == 0) c.stage = line.substr(line.find_first_not_of(' ', 6));
      if (line.rfind("facts:", 0) == 0) {
        std::istringstream words(line.substr(6));
        for (std::string w; words >> w;) c.facts.push_back(w);
      }
    } else if (section == "model") {
      c.model += line + "\n";
    } else if (section == "expected" && !line.empty()) {
      c.expected += line + "\n";
    }
  }
  return c;
}

std::shared_ptr<Graph> load(const GoldenCase& c) {
  onnx::ModelProto proto;
  auto status = onnx::OnnxParser::Parse(proto, c.model.c_str());
  EXPECT_TRUE(status.IsOK()) << status.ErrorMessage();
  auto g = onnx_io::load_onnx_model(proto, ".");
  for (const auto& f : c.facts) {
    size_t colon = f.find(':');
    for (size_t i = 0; i < g->inputs().size(); i++)
      if (g->input_name(i) == f.substr(0, colon))
        g->set_input_fact(i, Fact::parse(f.substr(colon + 1)));
  }
  return g;
}

std::vector<fs::path> golden_files() {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(KILN_SOURCE_DIR) / "tests/passes/golden"))
    if (e.path().extension() == ".golden") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

TEST(GoldenPasses, EveryCase) {
  auto files = golden_files();
  ASSERT_FALSE(files.empty());
  for (const auto& path : files) {
    SCOPED_TRACE(path.filename().string());
    GoldenCase c = read_case(path);
    auto typed = load(c);
    passes::to_typed(*typed);
    auto staged = load(c);
    passes::run_to_stage(*staged, passes::parse_stage(c.stage));
    EXPECT_EQ(graph_text(*staged), c.expected);
    // Same outputs on random inputs (inputs with a value get that value).
    std::vector<Tensor> inputs;
    std::mt19937 rng(7);
    std::normal_distribution<float> dist(0, 2);
    bool runnable = true;
    for (const auto& in : typed->inputs()) {
      const Fact& f = typed->fact(in);
      if (f.value) {
        inputs.push_back(*f.value);
        continue;
      }
      auto shape = f.try_concrete_shape();
      if (!shape || f.dt != DatumType::F32) {
        runnable = false;
        break;
      }
      Tensor t(DatumType::F32, *shape);
      for (int64_t i = 0; i < t.numel(); i++) t.data<float>()[i] = dist(rng);
      inputs.push_back(t);
    }
    if (runnable) kiln::testing::expect_same_outputs(*typed, *staged, inputs, 1e-4, 1e-5);
  }
}

// Each declutter pass is needed: the pipeline without it gives another graph on at least one
// golden case. dead-nodes is the exception: every pass's commit drops what no output needs, so
// it only names that work in the pass report.
TEST(GoldenPasses, EveryPassMatters) {
  auto files = golden_files();
  std::vector<GoldenCase> cases;
  for (const auto& path : files) cases.push_back(read_case(path));
  auto staged = [&](const GoldenCase& c, const std::string& without) {
    auto g = load(c);
    passes::to_typed(*g);
    passes::declutter_passes(without).run(*g);
    if (passes::parse_stage(c.stage) >= passes::Stage::Optimize) passes::optimize_passes().run(*g);
    return graph_text(*g);
  };
  std::vector<std::string> names;
  PassManager all = passes::declutter_passes();
  for (const auto& p : all.passes()) names.push_back(p->name());
  ASSERT_GT(names.size(), 10u);
  for (const auto& name : names) {
    if (name == "dead-nodes") continue;
    EXPECT_EQ(passes::declutter_passes(name).passes().size(), names.size() - 1) << name;
    bool matters = false;
    for (const auto& c : cases) {
      try {
        matters = staged(c, name) != c.expected;
      } catch (const Error&) {
        matters = true;  // the stage cannot even be reached without it
      }
      if (matters) break;
    }
    EXPECT_TRUE(matters) << "no golden case changes without the pass " << name;
  }
}
