// One loaded model, several sessions at once (a server, `kiln bench --concurrent`): an optimized
// model is immutable and shared, every mutable thing is a session's (arena, scratch, op states,
// thread pool). Each shared model runs in 4 concurrent sessions with pools of 1 and 2 threads,
// 50 runs each (KILN_CONCURRENT_RUNS overrides, e.g. under ThreadSanitizer): every run's outputs
// must be bitwise identical to a single session's. Run under TSan by scripts/sanitize.sh.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "core/concurrent_runs.h"
#include "io/model_loader.h"
#include "io/tensor/tensor_files.h"
#include "passes/pipeline.h"

namespace {

namespace fs = std::filesystem;

fs::path models_dir() {
  if (const char* env = std::getenv("KILN_MODELS_DIR")) return env;
  return fs::path(KILN_SOURCE_DIR) / ".." / "shared" / "models";
}

int runs_per_session() {
  if (const char* env = std::getenv("KILN_CONCURRENT_RUNS")) return std::max(1, std::atoi(env));
  return 50;
}

struct Case {
  std::string name;
  std::vector<std::pair<std::string, std::string>> facts;  // input name, -i fact
};

class ConcurrentSessions : public ::testing::TestWithParam<Case> {};

TEST_P(ConcurrentSessions, BitwiseIdenticalToOneSession) {
  const Case& c = GetParam();
  fs::path dir = models_dir() / c.name;
  if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << dir << " not present";
  auto graph = kiln::io::load_model((dir / "model.onnx").string());
  for (const auto& [input, fact] : c.facts) {
    for (size_t i = 0; i < graph->inputs().size(); i++)
      if (graph->input_name(i) == input) graph->set_input_fact(i, kiln::Fact::parse(fact));
  }
  auto bundle = kiln::io::read_bundle((dir / "test_data_set_0").string(), "input");
  std::vector<kiln::Tensor> inputs;
  for (auto& t : bundle) inputs.push_back(t.tensor);
  kiln::bind_input_shapes(*graph, inputs);
  kiln::passes::run_to_stage(*graph, kiln::passes::Stage::Optimize);
  auto plan = kiln::passes::plan(graph);
  for (int threads : {1, 2}) {
    SCOPED_TRACE(::testing::Message() << threads << " threads per session");
    std::vector<kiln::Tensor> reference;
    {
      kiln::Session single(plan, kiln::SessionOptions{threads});
      reference = single.run(inputs);
    }
    kiln::ConcurrentOptions options;
    options.sessions = 4;
    options.threads = threads;
    options.limits.warmup_runs = 1;
    options.limits.max_runs = runs_per_session();
    options.limits.max_seconds = 0;
    auto result = kiln::run_concurrent(plan, inputs, reference, options);
    EXPECT_TRUE(result.identical) << result.mismatch;
    ASSERT_EQ(result.run_ms.size(), 4u);
    for (const auto& s : result.run_ms)
      EXPECT_EQ(s.size(), static_cast<size_t>(options.limits.max_runs));
  }
}

INSTANTIATE_TEST_SUITE_P(Models, ConcurrentSessions,
                         ::testing::Values(Case{"mobilenet_v2", {}}, Case{"squeezenet1_1", {}},
                                           Case{"kws_tdnn", {}}, Case{"lstm_kws", {}},
                                           Case{"tiny_bert", {}}, Case{"silero_vad_v4", {}},
                                           Case{"silero_vad_v5", {}}, Case{"wavenet_kws", {}},
                                           Case{"tdnn_stream", {}}, Case{"crnn_stream", {}},
                                           Case{"conv2d_stream", {}}),
                         [](const auto& info) { return info.param.name; });

}  // namespace
