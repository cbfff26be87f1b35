// Hostile GraphDefs: corrupted real models and very deep graphs load or fail with kiln::Error,
// never crash.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "base/error.h"
#include "tests/cli/run_kiln.h"
#include "tests/io/tf/tf_test_util.h"

using namespace kiln;
using namespace kiln::tf_test;

namespace {

namespace fs = std::filesystem;

std::string kws_model(const std::string& name) {
  fs::path dir = kiln::testing::kws_dir();
  if (dir.empty() || !fs::exists(dir / (name + ".pb"))) return {};
  std::ifstream in(dir / (name + ".pb"), std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Parses, loads and analyses; true when it worked, false on kiln::Error.
bool try_load(const std::string& bytes) {
  try {
    tfproto::GraphDef def;
    tf_io::parse_graph_def(bytes, def);
    auto graph = tf_io::load_tf_graph(def);
    graph->analyse();
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

TEST(TfRobustness, CorruptedModelsFailCleanly) {
  for (const char* name : {"DS_CNN_S", "LSTM_S"}) {
    std::string bytes = kws_model(name);
    if (bytes.empty()) GTEST_SKIP() << "tf-ml-kws models not present";
    EXPECT_TRUE(try_load(bytes));
    std::mt19937 rng(42);
    for (int i = 0; i < 40; i++) {
      size_t cut = std::uniform_int_distribution<size_t>(1, bytes.size() - 1)(rng);
      try_load(bytes.substr(0, cut));  // must not crash
      std::string flipped = bytes;
      for (int k = 0; k < 8; k++) {
        size_t at = std::uniform_int_distribution<size_t>(0, bytes.size() - 1)(rng);
        flipped[at] = static_cast<char>(rng());
      }
      try_load(flipped);
    }
  }
}

TEST(TfRobustness, DeepChainLoads) {
  TfGraph g;
  g.placeholder("x", DatumType::F32, {1});
  std::string prev = "x";
  for (int i = 0; i < 50000; i++) {
    std::string name = "n" + std::to_string(i);
    g.node(name, "Neg", {prev});
    prev = name;
  }
  auto outs = run_outputs(g, {prev}, {Tensor::from_vector<float>({1}, {3})});
  EXPECT_EQ(floats(outs[0]), (std::vector<float>{3}));  // an even number of negations
}

TEST(TfRobustness, HugeConstantsAreRefused) {
  TfGraph g;
  auto& n = g.node("big", "Const");
  auto* t = (*n.mutable_attr())["value"].mutable_tensor();
  t->set_dtype(tfproto::DT_FLOAT);
  for (int i = 0; i < 4; i++) t->mutable_tensor_shape()->add_dim()->set_size(100000);
  t->add_float_val(1);
  EXPECT_THROW(tf_io::load_tf_graph(g.def), Error);
  t->mutable_tensor_shape()->mutable_dim(0)->set_size(-3);
  EXPECT_THROW(tf_io::load_tf_graph(g.def), Error);
}
