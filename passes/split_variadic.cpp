#include "passes/split_variadic.h"

#include <memory>

#include "core/patch.h"
#include "ops/elementwise/binary.h"
#include "ops/elementwise/variadic.h"
#include "passes/graph_util.h"

namespace kiln::passes {

size_t SplitVariadic::run(Graph& graph) {
  ModelPatch patch(graph);
  const size_t count = graph.size();
  for (size_t i = 0; i < count; i++) {
    const Node& n = graph.node(static_cast<int>(i));
    const auto* op = op_as<ops::Variadic>(n);
    if (!op || n.inputs.size() < 2 || graph.fact({n.id, 0}).dt != DatumType::F32) continue;
    bool present = true;
    for (const Outlet& in : n.inputs) present = present && in.present();
    // Two-input Max / Min are already the form MinMaxF32 takes.
    const bool minmax =
        op->kind() == ops::VariadicKind::Max || op->kind() == ops::VariadicKind::Min;
    if (!present || (minmax && n.inputs.size() == 2)) continue;
    const std::string name = n.name;
    const std::vector<Outlet> inputs = n.inputs;
    auto step = [&]() -> OpPtr {
      if (minmax) return std::make_shared<ops::Variadic>(op->kind());
      return std::make_shared<ops::Binary>(ops::BinaryKind::Add);
    };
    Outlet acc = inputs[0];
    for (size_t k = 1; k < inputs.size(); k++) {
      const bool last = k + 1 == inputs.size() && op->kind() != ops::VariadicKind::Mean;
      acc = {patch.add_node(last ? name : name + ".split" + std::to_string(k), step(),
                            {acc, inputs[k]}),
             0};
    }
    if (op->kind() == ops::VariadicKind::Mean) {
      const Outlet divisor = patch.add_const(
          name + ".count", Tensor::scalar<float>(static_cast<float>(inputs.size())));
      acc = {
          patch.add_node(name, std::make_shared<ops::Binary>(ops::BinaryKind::Div), {acc, divisor}),
          0};
    }
    patch.shunt({n.id, 0}, acc);
  }
  return patch.commit();
}

}  // namespace kiln::passes
