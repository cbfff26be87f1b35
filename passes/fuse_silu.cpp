#include "passes/fuse_silu.h"

#include "core/patch.h"
#include "ops/elementwise/silu.h"
#include "passes/pattern.h"

namespace kiln::passes {

size_t FuseSilu::run(Graph& graph) {
  ModelPatch patch(graph);
  Uses uses(graph);
  size_t count = graph.size();
  for (size_t i = 0; i < count; i++) {
    const Node& n = graph.node(static_cast<int>(i));
    if (!is_unary(graph, n.id, ops::UnaryKind::Sigmoid) || !n.inputs[0].present()) continue;
    Outlet x = n.inputs[0];
    if (!is_float(graph.fact(x).dt)) continue;
    int mul = single_consumer(uses, {n.id, 0});
    if (mul < 0 || binary_with(graph, mul, ops::BinaryKind::Mul, {n.id, 0}) != x) continue;
    if (!graph.fact({mul, 0}).same_type_and_shape(graph.fact(x))) continue;
    std::string name = graph.node(mul).name;
    int silu = patch.add_node(name, std::make_shared<ops::Silu>(), {x});
    patch.shunt({mul, 0}, {silu, 0});
  }
  return patch.commit();
}

}  // namespace kiln::passes
