#include "passes/concat_convs.h"

#include <set>

#include "core/patch.h"
#include "ops/nn/concat_convs.h"
#include "ops/shape/concat.h"
#include "passes/graph_util.h"

namespace kiln::passes {

size_t ConcatConvsPass::run(Graph& graph) {
  ModelPatch patch(graph);
  Uses uses(graph);
  size_t count = graph.size();
  for (size_t i = 0; i < count; i++) {
    const Node& n = graph.node(static_cast<int>(i));
    auto* concat = op_as<ops::Concat>(n);
    if (!concat || n.inputs.empty() || n.inputs.size() > ops::ConcatConvs::kMaxParts) continue;
    const Fact& out = n.outputs[0];
    if (out.dt != DatumType::F32 || out.rank() < 3) continue;
    int64_t axis =
        concat->axis() < 0 ? concat->axis() + static_cast<int64_t>(out.rank()) : concat->axis();
    if (axis != 1) continue;
    std::vector<ops::ConcatConvs::Part> parts;
    std::vector<Outlet> inputs;
    std::set<int> producers;
    for (const Outlet& in : n.inputs) {
      if (!in.present() || in.slot != 0 || single_consumer(uses, in) != n.id) break;
      const Node& producer = graph.node(in.node);
      auto conv = std::dynamic_pointer_cast<const ops::ConvPacked>(producer.op);
      if (!conv || !producers.insert(in.node).second) break;
      parts.push_back({conv, producer.inputs.size()});
      inputs.insert(inputs.end(), producer.inputs.begin(), producer.inputs.end());
    }
    if (parts.size() != n.inputs.size()) continue;
    std::string name = n.name;
    int id = n.id;
    Fact expected = out;
    int fused = patch.add_node(name, std::make_shared<ops::ConcatConvs>(std::move(parts)), inputs);
    if (!graph.fact({fused, 0}).same_type_and_shape(expected)) continue;  // left for dead-nodes
    patch.shunt({id, 0}, {fused, 0});
  }
  return patch.commit();
}

}  // namespace kiln::passes
