// The shared models with every node's codegen replacement applied (packed matmul and conv
// kernels) must still reproduce ONNX Runtime's outputs, at 1 and 2 threads, and the kernel ops
// must actually be there.
#include <gtest/gtest.h>

#include <filesystem>

#include "base/threading.h"
#include "core/state.h"
#include "core/tensor_compare.h"
#include "io/onnx/onnx_loader.h"
#include "io/tensor/tensor_files.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

// Replaces every top-level node by its codegen op (what the optimize stage's codegen pass does);
// returns how many were replaced.
int apply_codegen(Graph& graph) {
  int replaced = 0;
  for (size_t id = 0; id < graph.size(); id++) {
    Node& node = graph.node(static_cast<int>(id));
    if (!node.op) continue;
    FactRefs facts;
    for (const Outlet& o : node.inputs) facts.push_back(o.present() ? &graph.fact(o) : nullptr);
    if (OpPtr fast = node.op->codegen(facts)) {
      node.op = fast;
      replaced++;
    }
  }
  return replaced;
}

struct ModelCase {
  const char* name;
  int min_replaced;  // kernel ops expected at least
};

class CodegenModel : public ::testing::TestWithParam<ModelCase> {};

// ../shared/models from the main checkout, ../../shared/models from a worktree in wt/NAME.
fs::path models_dir() {
  fs::path one = fs::path(KILN_SOURCE_DIR) / ".." / "shared" / "models";
  return fs::exists(one) ? one : fs::path(KILN_SOURCE_DIR) / ".." / ".." / "shared" / "models";
}

TEST_P(CodegenModel, MatchesReferenceWithKernels) {
  fs::path dir = models_dir() / GetParam().name;
  if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << dir << " not present";
  auto named = io::read_bundle((dir / "test_data_set_0").string(), "input");
  auto expected = io::read_bundle((dir / "test_data_set_0").string(), "output");
  std::vector<Tensor> inputs;
  for (auto& t : named) inputs.push_back(t.tensor);
  auto graph = onnx_io::load_onnx_file((dir / "model.onnx").string());
  bind_input_shapes(*graph, inputs);
  graph->analyse();
  int replaced = apply_codegen(*graph);
  EXPECT_GE(replaced, GetParam().min_replaced);
  State state(std::make_shared<Plan>(graph));
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    auto outputs = state.run(inputs);
    ASSERT_EQ(outputs.size(), expected.size());
    for (size_t i = 0; i < outputs.size(); i++) {
      auto r = compare_tensors(outputs[i], expected[i].tensor, 1e-4, 1e-5);
      EXPECT_TRUE(r.ok) << "threads " << threads << " output " << i << ": " << r.summary();
    }
  }
  set_num_threads(0);
}

INSTANTIATE_TEST_SUITE_P(Models, CodegenModel,
                         ::testing::Values(ModelCase{"mobilenet_v2", 52},
                                           ModelCase{"squeezenet1_1", 26}, ModelCase{"kws_tdnn", 5},
                                           ModelCase{"lstm_kws", 1}, ModelCase{"tiny_bert", 8},
                                           ModelCase{"silero_vad_v4", 0},
                                           ModelCase{"silero_vad_v5", 0}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace kiln
