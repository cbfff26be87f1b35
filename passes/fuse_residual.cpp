#include "passes/fuse_residual.h"

#include "core/patch.h"
#include "ops/nn/conv_packed.h"
#include "ops/nn/matmul_packed.h"
#include "passes/pattern.h"

namespace kiln::passes {

namespace {

// The packed op with a residual at node input `input`, when `n` can take one.
OpPtr with_residual(const Node& n, size_t input) {
  if (auto* conv = op_as<ops::ConvPacked>(n)) {
    if (conv->depthwise() || conv->clamped() || conv->has_residual()) return nullptr;
    return conv->with_residual(input);
  }
  if (auto* mm = op_as<ops::MatMulPacked>(n)) {
    if (mm->clamped() || mm->has_residual()) return nullptr;
    return mm->with_residual(input);
  }
  return nullptr;
}

}  // namespace

size_t FuseResidual::run(Graph& graph) {
  ModelPatch patch(graph);
  Uses uses(graph);
  size_t count = graph.size();
  for (size_t i = 0; i < count; i++) {
    const Node& add = graph.node(static_cast<int>(i));
    const ops::Binary* b = binary_of(add);
    if (!b || b->kind() != ops::BinaryKind::Add || !b->attributes().empty() ||
        add.inputs.size() != 2 || !add.inputs[0].present() || !add.inputs[1].present() ||
        add.inputs[0] == add.inputs[1] || add.outputs[0].dt != DatumType::F32)
      continue;
    for (size_t s = 0; s < 2; s++) {
      Outlet product = add.inputs[s], residual = add.inputs[1 - s];
      if (product.slot != 0 || single_consumer(uses, product) != add.id) continue;
      // Same type and shape on both sides and out: no broadcast.
      if (!graph.fact(product).same_type_and_shape(add.outputs[0]) ||
          !graph.fact(residual).same_type_and_shape(add.outputs[0]))
        continue;
      const Node& producer = graph.node(product.node);
      OpPtr fused = with_residual(producer, producer.inputs.size());
      if (!fused) continue;
      std::vector<Outlet> inputs = producer.inputs;
      inputs.push_back(residual);
      std::string name = producer.name;
      int add_id = add.id;
      int f = patch.add_node(name, fused, inputs);
      patch.shunt({add_id, 0}, {f, 0});
      break;
    }
  }
  return patch.commit();
}

}  // namespace kiln::passes
