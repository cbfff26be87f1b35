#include "passes/fuse_epilogue.h"

#include <set>

#include "core/patch.h"
#include "ops/core/fused_epilogue.h"
#include "ops/elementwise/binary.h"
#include "ops/elementwise/clip.h"
#include "ops/elementwise/silu.h"
#include "ops/elementwise/unary.h"
#include "ops/elementwise/vectorized.h"
#include "ops/nn/conv.h"
#include "ops/nn/matmul.h"
#include "passes/graph_util.h"
#include "passes/pattern.h"

namespace kiln::passes {

namespace {

bool is_activation(ops::UnaryKind k) {
  using K = ops::UnaryKind;
  switch (k) {
    case K::Relu:
    case K::Sigmoid:
    case K::Tanh:
    case K::LeakyRelu:
    case K::Elu:
    case K::Selu:
    case K::Celu:
    case K::HardSigmoid:
    case K::HardSwish:
    case K::Softplus:
    case K::Softsign:
    case K::Gelu:
    case K::GeluTanh:
    case K::ThresholdedRelu:
      return true;
    default:
      return false;
  }
}

// Conv, MatMul, or their kernel-ready forms from codegen (matched by name: they live with the
// kernels and may change shape).
bool is_main_op(const Node& n) {
  if (op_as<ops::Conv>(n) || op_as<ops::MatMul>(n)) return true;
  std::string name = n.op->name();
  return name == "ConvPacked" || name == "MatMulPacked";
}

bool is_epilogue_binary(ops::BinaryKind k) {
  using K = ops::BinaryKind;
  return k == K::Add || k == K::Sub || k == K::Mul || k == K::Div || k == K::PRelu;
}

}  // namespace

size_t FuseEpilogue::run(Graph& graph) {
  // One step per producer per sweep; sweep again until nothing joins (it runs once, last).
  size_t total = 0;
  while (size_t rewrites = fuse_one_step(graph)) total += rewrites;
  return total;
}

size_t FuseEpilogue::fuse_one_step(Graph& graph) {
  ModelPatch patch(graph);
  Uses uses(graph);
  std::set<int> done;  // nodes consumed by a fusion this run
  size_t count = graph.size();
  for (size_t i = 0; i < count; i++) {
    const Node& n = graph.node(static_cast<int>(i));
    auto* fused = op_as<ops::FusedEpilogue>(n);
    if (!fused && !is_main_op(n)) continue;
    if (n.outputs.size() != 1 || done.count(n.id)) continue;
    Outlet out{n.id, 0};
    int user_id = single_consumer(uses, out);
    if (user_id < 0 || done.count(user_id)) continue;
    const Node& user = graph.node(user_id);
    if (!graph.fact({user_id, 0}).same_type_and_shape(n.outputs[0])) continue;
    // The step: which input of the user is our value, and its other inputs.
    ops::EpilogueStep step;
    step.op = user.op;
    std::vector<Outlet> extras;
    bool ok = false;
    if (auto* u = unary_of(user)) {
      ok = is_activation(u->kind()) && user.inputs.size() == 1;
    } else if (op_as<ops::Silu>(user)) {
      ok = user.inputs.size() == 1;
    } else if (op_as<ops::Clip>(user)) {
      ok = user.inputs[0] == out;
      for (size_t k = 1; k < user.inputs.size(); k++) {
        if (!user.inputs[k].present()) {
          ok = false;  // absent optional bounds cannot be passed through
          break;
        }
        extras.push_back(user.inputs[k]);
      }
    } else if (auto* b = binary_of(user)) {
      ok = is_epilogue_binary(b->kind()) && user.inputs.size() == 2 &&
           user.inputs[0] != user.inputs[1];
      if (ok) {
        step.position = user.inputs[0] == out ? 0 : 1;
        extras.push_back(user.inputs[1 - step.position]);
      }
    }
    if (!ok) continue;
    step.extras = extras.size();
    std::vector<Outlet> inputs = n.inputs;
    inputs.insert(inputs.end(), extras.begin(), extras.end());
    OpPtr op = fused ? OpPtr(fused->with_step(step))
                     : std::make_shared<ops::FusedEpilogue>(n.op, n.inputs.size(),
                                                            std::vector<ops::EpilogueStep>{step});
    int id = n.id;
    std::string name = n.name;
    int f = patch.add_node(name, op, inputs);
    patch.shunt({user_id, 0}, {f, 0});
    done.insert(id);
    done.insert(user_id);
  }
  return patch.commit();
}

}  // namespace kiln::passes
