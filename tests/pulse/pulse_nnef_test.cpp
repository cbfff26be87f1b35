// Pulsed models in NNEF: `kiln convert --pulse` writes the streaming graph (tract_pulse_delay,
// kiln_pulse_pad, kiln_pulse_lstm/gru) and kiln_stream.json; `kiln run` of that archive streams
// it and matches the whole-input references; converting twice gives the same bytes; the stream
// description and the pulse fragments refuse malformed values.
#include <gtest/gtest.h>

#include <fstream>

#include "../cli/run_kiln.h"
#include "base/error.h"
#include "io/nnef/nnef_loader.h"
#include "io/nnef/nnef_writer.h"
#include "io/nnef/stream_spec_file.h"
#include "ops/pulse/pulse_delay.h"
#include "pulse_test_util.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           fmt::format("kiln_pulse_nnef_{}_{}", ::getpid(),
                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The delay each model's SOURCE.txt states (its `pulse:` line), for the pulse sizes used here.
struct StreamCase {
  const char* name;
  int64_t delay;
  std::vector<int> pulses;
};

const StreamCase kCases[] = {{"wavenet_kws", 0, {1, 8}},
                             {"tdnn_stream", 16, {2, 8}},
                             {"crnn_stream", 1, {2, 8}},
                             {"conv2d_stream", 3, {4, 16}}};

TEST(PulseNnef, ConvertedStreamingModelsMatchBothBundles) {
  TempDir tmp;
  for (const auto& c : kCases) {
    fs::path dir = testing::shared_models_dir() / c.name;
    if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << dir << " not present";
    for (int p : c.pulses) {
      SCOPED_TRACE(fmt::format("{} pulse {}", c.name, p));
      fs::path out = tmp.path / fmt::format("{}_{}.nnef.tgz", c.name, p);
      auto r = testing::run_kiln(
          fmt::format("convert {} {} --pulse {}", (dir / "model.onnx").string(), out.string(), p));
      ASSERT_EQ(r.exit_code, 0) << r.output;
      EXPECT_NE(r.output.find(fmt::format("delay {} frames", c.delay)), std::string::npos)
          << r.output;
      for (const char* set : {"test_data_set_0", "test_data_set_1"}) {
        r = testing::run_kiln(fmt::format("run {} --input-bundle {} --assert-output-bundle {}",
                                          out.string(), (dir / set).string(),
                                          (dir / set).string()));
        EXPECT_EQ(r.exit_code, 0) << set << "\n" << r.output;
        EXPECT_NE(r.output.find(fmt::format("pulsed model, pulse {}", p)), std::string::npos)
            << r.output;
      }
    }
  }
}

TEST(PulseNnef, WrongReferenceFails) {
  TempDir tmp;
  fs::path dir = testing::shared_models_dir() / "tdnn_stream";
  if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << dir << " not present";
  fs::path out = tmp.path / "tdnn.nnef.tgz";
  ASSERT_EQ(testing::run_kiln(
                fmt::format("convert {} {} --pulse 4", (dir / "model.onnx").string(), out.string()))
                .exit_code,
            0);
  auto r = testing::run_kiln(fmt::format("run {} --input-bundle {} --assert-output-bundle {}",
                                         out.string(), (dir / "test_data_set_0").string(),
                                         (dir / "test_data_set_1").string()));
  EXPECT_EQ(r.exit_code, 1) << r.output;
}

TEST(PulseNnef, ConvertingTwiceIsByteIdenticalAndTheGraphUsesPulseFragments) {
  TempDir tmp;
  fs::path dir = testing::shared_models_dir() / "crnn_stream";
  if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << dir << " not present";
  for (const char* name : {"a.nnef.tgz", "b.nnef.tgz", "c_dir"}) {
    auto r = testing::run_kiln(fmt::format("convert {} {} --pulse 4", (dir / "model.onnx").string(),
                                           (tmp.path / name).string()));
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  const std::string a = read_file(tmp.path / "a.nnef.tgz");
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a, read_file(tmp.path / "b.nnef.tgz"));
  const std::string graph = read_file(tmp.path / "c_dir" / "graph.nnef");
  for (const char* word : {"extension tract_registry tract_pulse;", "tract_pulse_delay(",
                           "kiln_pulse_pad(", "kiln_pulse_gru(", "kiln_pulse_lstm(", "warmup = 1"})
    EXPECT_NE(graph.find(word), std::string::npos) << word << "\n" << graph;
  const std::string spec = read_file(tmp.path / "c_dir" / "kiln_stream.json");
  EXPECT_NE(spec.find("\"full\": \"(S+1)/2\""), std::string::npos) << spec;
  // The directory form runs too (a folder holding graph.nnef and kiln_stream.json).
  auto r = testing::run_kiln(fmt::format(
      "run {} --input-bundle {} --assert-output-bundle {}", (tmp.path / "c_dir").string(),
      (dir / "test_data_set_0").string(), (dir / "test_data_set_0").string()));
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST(PulseNnef, BenchTimesAPulsedArchiveAsAStream) {
  TempDir tmp;
  fs::path dir = testing::shared_models_dir() / "wavenet_kws";
  if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << dir << " not present";
  fs::path out = tmp.path / "w.nnef.tgz";
  ASSERT_EQ(testing::run_kiln(
                fmt::format("convert {} {} --pulse 8", (dir / "model.onnx").string(), out.string()))
                .exit_code,
            0);
  auto r = testing::run_kiln(fmt::format("bench {} --runs 5 --threads 1 --json", out.string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("\"real_time_factor\""), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\"pulse\": 8"), std::string::npos) << r.output;
  r = testing::run_kiln(fmt::format("bench {} --pulse 8 --runs 5", out.string()));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("already a pulsed model"), std::string::npos) << r.output;
}

TEST(PulseNnef, ConvertRefusesStrictAndOtherStages) {
  TempDir tmp;
  fs::path dir = testing::shared_models_dir() / "tdnn_stream";
  if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << dir << " not present";
  auto r = testing::run_kiln(fmt::format("convert {} {} --pulse 8 --nnef-strict",
                                         (dir / "model.onnx").string(),
                                         (tmp.path / "s.nnef.tgz").string()));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--nnef-strict"), std::string::npos) << r.output;
  r = testing::run_kiln(fmt::format("convert {} {} --pulse 8 --stage typed",
                                    (dir / "model.onnx").string(),
                                    (tmp.path / "t.nnef.tgz").string()));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("drop --stage typed"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(tmp.path / "s.nnef.tgz"));
}

// The non-pulsed recurrent fragments: crnn_stream's GRU and LSTM as kiln_core_gru / _lstm.
TEST(PulseNnef, GruAndLstmModelRoundTrips) {
  TempDir tmp;
  fs::path dir = testing::shared_models_dir() / "crnn_stream";
  if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << dir << " not present";
  fs::path out = tmp.path / "crnn.nnef.tgz";
  auto r =
      testing::run_kiln(fmt::format("convert {} {}", (dir / "model.onnx").string(), out.string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("GRU, LSTM"), std::string::npos) << r.output;
  r = testing::run_kiln(fmt::format("run {} --input-bundle {} --assert-output-bundle {}",
                                    out.string(), (dir / "test_data_set_1").string(),
                                    (dir / "test_data_set_1").string()));
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

StreamSpec sample_spec() {
  StreamSpec spec;
  spec.symbol = "T";
  spec.pulse = 4;
  spec.length_input = 1;
  StreamPort in;
  in.streaming = true;
  in.axis = 2;
  in.pulse = 4;
  in.full = Dim::symbol("T");
  spec.inputs.push_back(in);
  StreamPort out = in;
  out.delay = 3;
  out.pulse = 2;
  out.full = Dim::parse("(T+1)/2");
  spec.outputs.push_back(out);
  return spec;
}

TEST(StreamSpecFile, RoundTrips) {
  const StreamSpec spec = sample_spec();
  const std::string text = nnef::stream_spec_to_json(spec);
  StreamSpec back = nnef::stream_spec_from_json(text, 2, 1, "m");
  EXPECT_EQ(back.symbol, "T");
  EXPECT_EQ(back.pulse, 4);
  EXPECT_EQ(back.length_input, 1);
  ASSERT_EQ(back.outputs.size(), 1u);
  EXPECT_EQ(back.outputs[0].delay, 3);
  EXPECT_EQ(back.outputs[0].pulse, 2);
  EXPECT_EQ(back.outputs[0].axis, 2u);
  EXPECT_EQ(back.outputs[0].full.to_string(), spec.outputs[0].full.to_string());
  EXPECT_EQ(nnef::stream_spec_to_json(back), text);
}

TEST(StreamSpecFile, RefusesMalformedDescriptions) {
  const std::string good = nnef::stream_spec_to_json(sample_spec());
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  const std::pair<std::string, std::string> cases[] = {
      {"not json", "{"},
      {"wrong counts", good},  // checked against a graph of 3 inputs below
      {"negative pulse", replaced("\"pulse\": 4,\n  \"length", "\"pulse\": -4,\n  \"length")},
      {"huge delay", replaced("\"delay\": 3", "\"delay\": 99999999999")},
      {"axis out of range", replaced("\"axis\": 2", "\"axis\": 400")},
      {"bad dim", replaced("\"full\": \"T\"", "\"full\": \"T+*\"")},
      {"wrong format", replaced("kiln-stream", "other")},
      {"missing field", replaced("\"symbol\": \"T\",", "")},
  };
  for (const auto& [what, text] : cases) {
    SCOPED_TRACE(what);
    const size_t inputs = what == "wrong counts" ? 3 : 2;
    try {
      nnef::stream_spec_from_json(text, inputs, 1, "model.nnef.tgz");
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_NE(e.chain().find("model.nnef.tgz/kiln_stream.json"), std::string::npos) << e.chain();
    }
  }
}

// tract's own fragment, written by hand as tract writes it, reads as a PulseDelay that delays.
TEST(PulseNnef, ReadsTractPulseDelay) {
  nnef::FileMap files;
  files["graph.nnef"] =
      "version 1.0;\nextension tract_registry tract_pulse;\n"
      "graph g( x ) -> ( y )\n{\n  x = external<scalar>(shape = [1, 2]);\n"
      "  y = tract_pulse_delay(x, axis = 1, delay = 1, overlap = 0);\n}\n";
  auto graph = nnef::load_nnef_files(files, "hand-written");
  graph->analyse();
  const ops::PulseDelay* delay = nullptr;
  for (const auto& n : graph->nodes())
    if (auto* d = dynamic_cast<const ops::PulseDelay*>(n.op.get())) delay = d;
  ASSERT_NE(delay, nullptr);
  EXPECT_EQ(delay->delay(), 1);
  StreamSpec spec;
  spec.symbol = "S";
  spec.pulse = 2;
  StreamPort port;
  port.streaming = true;
  port.axis = 1;
  port.pulse = 2;
  port.full = Dim::symbol("S");
  spec.inputs = {port};
  port.delay = 1;
  spec.outputs = {port};
  StreamSession stream(passes::plan(graph), spec);
  auto pulse = [](float a, float b) {
    Tensor t(DatumType::F32, {1, 2});
    t.data<float>()[0] = a;
    t.data<float>()[1] = b;
    return t;
  };
  auto y = stream.push({pulse(1, 2)});
  EXPECT_EQ(y[0].data<float>()[0], 0.0f);
  EXPECT_EQ(y[0].data<float>()[1], 1.0f);
  y = stream.push({pulse(3, 4)});
  EXPECT_EQ(y[0].data<float>()[0], 2.0f);
  EXPECT_EQ(y[0].data<float>()[1], 3.0f);
}

TEST(PulseNnef, RefusesOutOfRangePulseArguments) {
  const char* bodies[] = {
      "y = tract_pulse_delay(x, axis = 5, delay = 1, overlap = 0);",
      "y = tract_pulse_delay(x, axis = 1, delay = -1, overlap = 0);",
      "y = tract_pulse_delay(x, axis = 1, delay = 1, overlap = 99999999999);",
      "y = kiln_pulse_pad(x, axis = 1, before = 1, after = 0, begin_input = 0, end_input = 'T', "
      "symbol = 'S');",
      "y = kiln_pulse_pad(x, axis = 1, before = 1, after = 0, begin_input = 0, end_input = 'S+', "
      "symbol = 'S');",
  };
  for (const char* body : bodies) {
    SCOPED_TRACE(body);
    nnef::FileMap files;
    files["graph.nnef"] = std::string("version 1.0;\nextension tract_registry tract_pulse;\n") +
                          "extension kiln_registry kiln_pulse;\n"
                          "graph g( x ) -> ( y )\n{\n  x = external<scalar>(shape = [1, 2]);\n  " +
                          body + "\n}\n";
    EXPECT_THROW(nnef::load_nnef_files(files, "hostile"), Error);
  }
}

}  // namespace
}  // namespace kiln
