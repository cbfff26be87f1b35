#include "passes/codegen.h"

#include "base/error.h"
#include "core/patch.h"
#include "passes/graph_util.h"

namespace kiln::passes {

size_t Codegen::run(Graph& graph) {
  ModelPatch patch(graph);
  for (const auto& n : graph.nodes()) {
    if (is_source_or_const(n)) continue;
    FactRefs facts;
    for (const auto& in : n.inputs) facts.push_back(in.present() ? &graph.fact(in) : nullptr);
    OpPtr replacement = n.op->codegen(facts);
    if (!replacement) continue;
    std::vector<Fact> before = n.outputs;
    int id = n.id;
    patch.replace_op(id, std::move(replacement));
    const auto& after = graph.node(id).outputs;
    for (size_t i = 0; i < before.size(); i++)
      KILN_ENSURE(before[i].same_type_and_shape(after[i]),
                  "codegen: the replacement of node {} changes output {} from {} to {}",
                  graph.describe(id), i, before[i].to_string(), after[i].to_string());
  }
  return patch.commit();
}

}  // namespace kiln::passes
