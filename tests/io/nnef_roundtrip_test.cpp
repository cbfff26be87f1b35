// ONNX -> NNEF -> kiln: converted models must reproduce the ONNX references, deterministically.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "../onnx_backend/backend_case.h"
#include "base/error.h"
#include "core/state.h"
#include "core/tensor_compare.h"
#include "io/nnef/nnef_loader.h"
#include "io/nnef/nnef_writer.h"
#include "io/onnx/onnx_loader.h"
#include "io/tensor/tensor_files.h"
#include "passes/pipeline.h"

namespace {

namespace fs = std::filesystem;
using namespace kiln;

fs::path temp_dir() {
  fs::path d = fs::temp_directory_path() / ("kiln_nnef_rt_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Converts the case's model.onnx to NNEF (archive `out`), loads that back and checks every data
// set. Returns "" on success, "unsupported: ..." when the writer refuses the model, or the error.
std::string round_trip(const fs::path& case_dir, const fs::path& out,
                       nnef::WrittenModel* written = nullptr, bool bind_inputs = false,
                       passes::Stage stage = passes::Stage::Typed) {
  auto onnx = onnx_io::load_onnx_file((case_dir / "model.onnx").string());
  if (bind_inputs) {
    // As `kiln convert -i ...` with the shapes of the first data set's inputs.
    std::vector<Tensor> inputs;
    for (auto& t :
         io::read_bundle((case_dir / "test_data_set_0").string(), "input", input_facts(*onnx)))
      inputs.push_back(t.tensor);
    bind_input_shapes(*onnx, inputs);
  }
  passes::run_to_stage(*onnx, stage);
  nnef::WrittenModel model;
  try {
    model = nnef::write_nnef(*onnx);
  } catch (const Error& e) {
    return "unsupported: " + e.chain();
  }
  if (written) *written = model;
  nnef::write_container(out.string(), model.files);
  try {
    for (const auto& e : fs::directory_iterator(case_dir)) {
      if (!e.is_directory() || e.path().filename().string().rfind("test_data_set_", 0) != 0)
        continue;
      // Read as the ONNX model declares its values (bf16 stored as u16, sequences).
      auto ins = io::read_bundle(e.path().string(), "input", input_facts(*onnx));
      auto expected = io::read_bundle(e.path().string(), "output", output_facts(*onnx));
      std::vector<Tensor> inputs;
      for (auto& t : ins) inputs.push_back(t.tensor);
      for (size_t i = 0; i < inputs.size() && i < onnx->inputs().size(); i++)
        if (inputs[i].dtype() != onnx->fact(onnx->inputs()[i]).dt)
          return "unsupported: test data of another type than the input (" +
                 std::string(name_of(inputs[i].dtype())) + ")";
      auto graph = nnef::load_nnef(out.string());
      bind_input_shapes(*graph, inputs);
      graph->analyse();
      auto outputs = run_graph(graph, inputs);
      KILN_ENSURE(outputs.size() == expected.size(), "{} outputs, {} expected", outputs.size(),
                  expected.size());
      for (size_t i = 0; i < outputs.size(); i++) {
        auto r = compare_tensors(outputs[i], expected[i].tensor, 1e-4, 1e-5);
        KILN_ENSURE(r.ok, "output {}: {}", i, r.summary());
      }
    }
  } catch (const Error& e) {
    return e.chain() + "\n" + model.files["graph.nnef"].substr(0, 3000);
  }
  return "";
}

class SharedModelNnef : public ::testing::TestWithParam<std::string> {};

TEST_P(SharedModelNnef, RoundTripMatchesReference) {
  // ../shared/models next to the checkout (or next to the worktrees folder).
  fs::path dir = fs::path(KILN_SOURCE_DIR) / ".." / "shared" / "models" / GetParam();
  if (!fs::exists(dir))
    dir = fs::path(KILN_SOURCE_DIR) / ".." / ".." / "shared" / "models" / GetParam();
  if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << dir << " not present";
  fs::path out = temp_dir() / (GetParam() + ".nnef.tgz");
  nnef::WrittenModel written;
  // The Silero models' symbolic shapes only resolve (through their If nodes) once the input
  // shapes are given, as `kiln run` and `kiln convert -i` do.
  bool bind = GetParam().rfind("silero", 0) == 0;
  // As `kiln convert` does: the decluttered graph.
  std::string r = round_trip(dir, out, &written, bind, passes::Stage::Declutter);
  EXPECT_EQ(r, "");
  if (!r.empty()) return;
  // Same input, same bytes.
  fs::path again = temp_dir() / (GetParam() + "_again.nnef.tgz");
  round_trip(dir, again, nullptr, bind, passes::Stage::Declutter);
  EXPECT_EQ(slurp(out), slurp(again));
  // NNEF -> NNEF gives the same text graph.
  auto loaded = nnef::load_nnef(out.string());
  passes::run_to_stage(*loaded, passes::Stage::Declutter);
  std::string again_text = nnef::write_nnef(*loaded).files.at("graph.nnef");
  // Byte for byte, variable names included: a pass folding a constant it only reshapes keeps
  // the constant's name, so the variables read back are named as they were written.
  EXPECT_EQ(again_text, written.files.at("graph.nnef"));
  // And once more: NNEF -> NNEF -> NNEF is a fixed point.
  fs::path again2 = temp_dir() / (GetParam() + "_again2.nnef.tgz");
  nnef::write_container(again2.string(), nnef::write_nnef(*loaded).files);
  auto loaded2 = nnef::load_nnef(again2.string());
  passes::run_to_stage(*loaded2, passes::Stage::Declutter);
  EXPECT_EQ(nnef::write_nnef(*loaded2).files.at("graph.nnef"), again_text);
  fs::remove(again2);
  fs::remove(out);
  fs::remove(again);
}

INSTANTIATE_TEST_SUITE_P(Models, SharedModelNnef,
                         ::testing::Values("mobilenet_v2", "squeezenet1_1", "kws_tdnn", "lstm_kws",
                                           "tiny_bert", "silero_vad_v4", "silero_vad_v5"));

// Which shared models need kiln's extension fragments (the acceptance: mobilenet_v2,
// squeezenet1_1 and kws_tdnn convert with --nnef-strict).
TEST(NnefStrict, StandardOnlyModelsAndExtensionLists) {
  fs::path root = fs::path(KILN_SOURCE_DIR) / ".." / "shared" / "models";
  if (!fs::exists(root)) root = fs::path(KILN_SOURCE_DIR) / ".." / ".." / "shared" / "models";
  if (!fs::exists(root / "kws_tdnn")) GTEST_SKIP() << "shared models not present";
  nnef::WriteOptions strict;
  strict.strict = true;
  for (const char* m : {"mobilenet_v2", "squeezenet1_1", "kws_tdnn"}) {
    auto g = onnx_io::load_onnx_file((root / m / "model.onnx").string());
    passes::run_to_stage(*g, passes::Stage::Declutter);
    EXPECT_TRUE(nnef::write_nnef(*g, strict).extension_ops.empty()) << m;
  }
  auto g = onnx_io::load_onnx_file((root / "tiny_bert" / "model.onnx").string());
  g->analyse();
  EXPECT_EQ(nnef::write_nnef(*g).extension_ops, std::vector<std::string>{"Erf"});
  try {
    nnef::write_nnef(*g, strict);
    ADD_FAILURE() << "--nnef-strict accepted a model needing extensions";
  } catch (const Error& e) {
    EXPECT_NE(e.chain().find("needs NNEF extensions for these ops:\n  Erf"), std::string::npos)
        << e.chain();
  }
}

TEST(NnefBackendSuite, EveryConvertibleCaseRoundTrips) {
  // Every case of the suite that kiln passes: the writer either refuses it (an op NNEF cannot
  // express) or the NNEF it writes must reproduce the references.
  const std::vector<std::string> prefixes = {"node/", "pytorch-converted/", "pytorch-operator/",
                                             "simple/"};
  int converted = 0, refused = 0;
  std::string failures;
  fs::path out = temp_dir() / "case.nnef.tgz";
  for (const auto& name : kiln::testing::list_backend_cases()) {
    bool wanted = false;
    for (const auto& p : prefixes) wanted = wanted || name.rfind(p, 0) == 0;
    if (!wanted) continue;
    fs::path dir = fs::path(kiln::testing::kBackendRoot) / name;
    if (!kiln::testing::run_backend_case(dir.string()).passed) continue;  // not an NNEF matter
    std::string r;
    try {
      r = round_trip(dir, out);
    } catch (const Error& e) {
      r = e.chain();
    }
    if (r.rfind("unsupported: ", 0) == 0) {
      refused++;
    } else if (r.empty()) {
      converted++;
    } else {
      failures += "\n" + name + ": " + r.substr(0, 600);
    }
  }
  if (converted + refused == 0) GTEST_SKIP() << "ONNX backend test data not installed";
  EXPECT_EQ(failures, "");
  EXPECT_GE(converted, 400) << "refused " << refused;
  std::printf("NNEF round trip: %d backend cases converted and matched, %d refused\n", converted,
              refused);
}

}  // namespace

namespace {

// Symbolic input dims are declared (extension tract_symbol S) and survive the round trip.
TEST(NnefSymbolic, SequenceLengthStaysSymbolic) {
  fs::path dir = fs::path(KILN_SOURCE_DIR) / ".." / "shared" / "models" / "tiny_bert";
  if (!fs::exists(dir))
    dir = fs::path(KILN_SOURCE_DIR) / ".." / ".." / "shared" / "models" / "tiny_bert";
  if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << "shared models not present";
  auto g = onnx_io::load_onnx_file((dir / "model.onnx").string());
  g->set_input_fact(0, Fact::parse("1,S,256,f32"));
  passes::run_to_stage(*g, passes::Stage::Declutter);
  auto model = nnef::write_nnef(*g);
  const std::string& text = model.files.at("graph.nnef");
  EXPECT_NE(text.find("extension tract_symbol S;"), std::string::npos);
  EXPECT_NE(text.find("external<scalar>(shape = [1, S, 256])"), std::string::npos) << text;
  auto loaded = nnef::load_nnef_files(model.files);
  EXPECT_EQ(loaded->fact(loaded->inputs()[0]).to_string(), "1,S,256,f32");
  auto ins = io::read_bundle((dir / "test_data_set_0").string(), "input");
  auto expected = io::read_bundle((dir / "test_data_set_0").string(), "output");
  std::vector<Tensor> inputs = {ins[0].tensor};
  bind_input_shapes(*loaded, inputs);
  loaded->analyse();
  auto out = run_graph(loaded, inputs);
  auto r = compare_tensors(out[0], expected[0].tensor, 1e-4, 1e-5);
  EXPECT_TRUE(r.ok) << r.summary();
}

}  // namespace
