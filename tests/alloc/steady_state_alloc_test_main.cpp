// Steady-state runs allocate nothing: every shared model, at 1 and 2 threads, runs through
// State::run(inputs, outputs) with the C allocation functions counted (counting_allocator.cpp
// replaces them in this executable only). The first runs measure the values and lay the arena
// out; every later run must make zero allocations, and still match the reference outputs (int8
// models: within 2 output steps, shared/models/README.md's rule, on the int8 kernels).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "base/threading.h"
#include "core/state.h"
#include "core/tensor_compare.h"
#include "counting_allocator.h"
#include "io/model_loader.h"
#include "io/tensor/tensor_files.h"
#include "passes/pipeline.h"
#include "tests/cli/run_kiln.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

struct ModelCase {
  const char* name;
  const char* constant_input;  // "name:fact" made constant before the passes, or nullptr
  double atol = 1e-5;          // int8 models: 2 output steps (SOURCE.txt), rtol 0
};

class SteadyStateAllocations : public ::testing::TestWithParam<ModelCase> {};

TEST_P(SteadyStateAllocations, ZeroAfterTheFirstRun) {
  fs::path models = testing::shared_models_dir();
  fs::path dir = models / GetParam().name;
  if (models.empty() || !fs::exists(dir / "model.onnx")) GTEST_SKIP() << dir << " not present";
  auto graph = io::load_model((dir / "model.onnx").string());
  auto named = io::read_bundle((dir / "test_data_set_0").string(), "input", input_facts(*graph));
  auto expected = io::read_bundle((dir / "test_data_set_0").string(), "output");
  std::vector<Tensor> inputs;
  for (auto& t : named) inputs.push_back(t.tensor);
  if (const char* c = GetParam().constant_input) {
    std::string text = c;
    size_t colon = text.find(':');
    for (size_t i = 0; i < graph->inputs().size(); i++)
      if (graph->input_name(i) == text.substr(0, colon))
        graph->set_input_fact(i, Fact::parse(text.substr(colon + 1)));
  }
  bind_input_shapes(*graph, inputs);
  passes::check_constant_inputs(*graph, inputs);
  passes::run_to_stage(*graph, passes::Stage::Optimize);
  State state(passes::plan(graph));
  std::vector<Tensor> outputs;
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    // Warm-up: the first run lays the arena out; the thread pool grows on its first job; a
    // worker thread's kernel scratch (thread_local, grow-only, sized to the largest request of
    // any thread) is made the first time the worker takes a chunk, which the warm-up runs see
    // to in practice.
    for (int run = 0; run < 3; run++) state.run(inputs, outputs);
    for (int run = 0; run < 3; run++) {
      testing::start_counting_allocations();
      state.run(inputs, outputs);
      size_t allocations = testing::stop_counting_allocations();
      EXPECT_EQ(allocations, 0u) << GetParam().name << ", " << threads << " threads, run "
                                 << run + 4 << " (KILN_ALLOC_TRACE=1 prints where)";
    }
    ASSERT_EQ(outputs.size(), expected.size());
    for (size_t i = 0; i < outputs.size(); i++) {
      const bool int8 = GetParam().atol != ModelCase{}.atol;
      auto r = compare_tensors(outputs[i], expected[i].tensor, int8 ? 0.0 : 1e-4, GetParam().atol);
      EXPECT_TRUE(r.ok) << threads << " threads, output " << i << ": " << r.summary();
    }
  }
  // Outputs into caller memory (the API's zero-copy buffers): the same values bit for bit,
  // written in place unless the output is a view, and no allocation either once warm.
  std::vector<std::vector<char>> buffers;
  std::vector<Tensor> targets, into;
  for (const Tensor& o : outputs) {
    buffers.emplace_back(o.nbytes() + 64, '\x5a');
    targets.push_back(Tensor::borrow(o.dtype(), o.shape(), buffers.back().data(), o.nbytes()));
  }
  for (int run = 0; run < 2; run++) state.run(inputs, into, targets);
  testing::start_counting_allocations();
  state.run(inputs, into, targets);
  size_t allocations = testing::stop_counting_allocations();
  EXPECT_EQ(allocations, 0u) << GetParam().name << ": a run into targets allocated";
  size_t in_place = 0;
  for (size_t i = 0; i < outputs.size(); i++) {
    EXPECT_TRUE(into[i].equals(outputs[i])) << GetParam().name << " output " << i;
    if (into[i].raw_data() == buffers[i].data()) {
      in_place++;
      EXPECT_EQ(std::memcmp(buffers[i].data(), outputs[i].raw_data(), outputs[i].nbytes()), 0);
    }
    for (size_t k = outputs[i].nbytes(); k < buffers[i].size(); k++)
      ASSERT_EQ(buffers[i][k], '\x5a') << GetParam().name << " output " << i << " overran";
  }
  std::printf("%s: %zu of %zu outputs computed in the caller's memory\n", GetParam().name, in_place,
              outputs.size());
  EXPECT_GE(in_place, 1u) << GetParam().name;
  set_num_threads(0);
  MemoryStats m = state.memory_stats();
  std::printf("%s: arena %zu bytes for %zu values of %zu bytes; all node outputs %zu bytes\n",
              GetParam().name, m.arena_bytes, m.planned_values, m.planned_bytes, m.outputs_bytes);
  EXPECT_LE(m.arena_bytes, m.outputs_bytes + 64 * m.planned_values);
}

INSTANTIATE_TEST_SUITE_P(
    Models, SteadyStateAllocations,
    ::testing::Values(ModelCase{"mobilenet_v2", nullptr}, ModelCase{"squeezenet1_1", nullptr},
                      ModelCase{"kws_tdnn", nullptr}, ModelCase{"lstm_kws", nullptr},
                      ModelCase{"tiny_bert", nullptr}, ModelCase{"silero_vad_v5", "sr:i64=16000"},
                      // int8 kernels: depthwise and grouped QConvPacked (QDQ), 1-D convs and a
                      // QLinearMatMul (QOperator); atol = 2 s from their SOURCE.txt.
                      ModelCase{"int8/mobilenet_v2_int8_qdq", nullptr,
                                2 * 0.00195828732 * (1 + 1e-4)},
                      ModelCase{"int8/kws_tdnn_int8_qop", nullptr, 2 * 0.0414205715 * (1 + 1e-4)}),
    [](const auto& info) {
      std::string name = info.param.name;
      for (char& ch : name)
        if (ch == '/') ch = '_';
      return name;
    });

// The counter itself: an allocation between start and stop is counted.
std::vector<int>* volatile g_sink = nullptr;  // keeps the compiler from eliding the allocation

TEST(CountingAllocator, CountsAllocations) {
  testing::start_counting_allocations();
  g_sink = new std::vector<int>(1000);
  void* volatile raw = std::malloc(64);
  size_t n = testing::stop_counting_allocations();
  std::free(raw);
  delete g_sink;
  EXPECT_GE(n, 3u);
  testing::start_counting_allocations();
  EXPECT_EQ(testing::stop_counting_allocations(), 0u);
}

}  // namespace
}  // namespace kiln
