#include "passes/fuse_mish.h"

#include "core/patch.h"
#include "ops/elementwise/unary.h"
#include "passes/pattern.h"

namespace kiln::passes {

size_t FuseMish::run(Graph& graph) {
  ModelPatch patch(graph);
  Uses uses(graph);
  size_t count = graph.size();
  for (size_t i = 0; i < count; i++) {
    const Node& n = graph.node(static_cast<int>(i));
    if (!is_unary(graph, n.id, ops::UnaryKind::Softplus) || !n.inputs[0].present()) continue;
    Outlet x = n.inputs[0];
    if (!is_float(graph.fact(x).dt)) continue;
    int tanh = single_consumer(uses, {n.id, 0});
    if (tanh < 0 || !is_unary(graph, tanh, ops::UnaryKind::Tanh)) continue;
    int mul = single_consumer(uses, {tanh, 0});
    if (mul < 0 || binary_with(graph, mul, ops::BinaryKind::Mul, {tanh, 0}) != x) continue;
    if (!graph.fact({mul, 0}).same_type_and_shape(graph.fact(x))) continue;
    int mish = patch.add_node(graph.node(mul).name,
                              std::make_shared<ops::Unary>(ops::UnaryKind::Mish), {x});
    patch.shunt({mul, 0}, {mish, 0});
  }
  return patch.commit();
}

}  // namespace kiln::passes
