// Streaming pulses allocate nothing in steady state: each shared streaming model, pulsified at
// P = 8 and pushed through a StreamSession (1 thread), makes zero allocations per push once the
// warm-up pulses (delay lines filling, recurrences past their first frames) are behind it.
// crnn_stream is left out: its GRU has no kernel form yet, and the reference RecurrentOp::eval
// allocates its work vectors per call (the pulse ops around it do not).
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "core/stream_session.h"
#include "counting_allocator.h"
#include "io/model_loader.h"
#include "passes/pipeline.h"
#include "passes/pulse/pulsify.h"
#include "tests/cli/run_kiln.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

class PulseAllocations : public ::testing::TestWithParam<const char*> {};

TEST_P(PulseAllocations, ZeroPerPushInSteadyState) {
  fs::path models = testing::shared_models_dir();
  fs::path model = models / GetParam() / "model.onnx";
  if (models.empty() || !fs::exists(model)) GTEST_SKIP() << model << " not present";
  auto graph = io::load_model(model.string());
  passes::to_typed(*graph);
  passes::declutter(*graph);
  auto pulsed = passes::pulsify(*graph, {"", 8});
  passes::optimize(*pulsed.graph);
  StreamSession stream(passes::plan(pulsed.graph), pulsed.spec, {1});
  const Fact& f = pulsed.graph->fact(pulsed.graph->inputs()[0]);
  Tensor frames(f.dt, f.concrete_shape());
  std::memset(frames.raw_data(), 0, frames.nbytes());
  frames.data<float>()[0] = 1.0f;
  std::vector<Tensor> inputs{frames}, outputs;
  for (int i = 0; i < 40; i++) stream.push(inputs, outputs);
  for (int i = 0; i < 10; i++) {
    testing::start_counting_allocations();
    stream.push(inputs, outputs);
    size_t allocations = testing::stop_counting_allocations();
    EXPECT_EQ(allocations, 0u) << GetParam() << ", push " << 40 + i;
  }
}

INSTANTIATE_TEST_SUITE_P(Streaming, PulseAllocations,
                         ::testing::Values("wavenet_kws", "tdnn_stream", "conv2d_stream"));

}  // namespace
}  // namespace kiln
