#include "passes/fold_transpose_matmul.h"

#include "core/patch.h"
#include "ops/nn/matmul_dynamic.h"
#include "ops/shape/transpose.h"
#include "passes/graph_util.h"

namespace kiln::passes {

namespace {

// Transpose(Transpose(x, inner), outer) as one permutation of x: out[d] = inner[outer[d]].
std::vector<size_t> compose(const std::vector<size_t>& inner, const std::vector<size_t>& outer) {
  std::vector<size_t> out(outer.size());
  for (size_t d = 0; d < outer.size(); d++) out[d] = inner[outer[d]];
  return out;
}

bool concrete(const Fact& f) {
  return f.try_concrete_shape().has_value();
}

}  // namespace

size_t FoldTransposeMatMul::run(Graph& graph) {
  ModelPatch patch(graph);
  Uses uses(graph);
  size_t count = graph.size();
  for (size_t i = 0; i < count; i++) {
    const Node& n = graph.node(static_cast<int>(i));
    auto* mm = op_as<ops::MatMulDynamic>(n);
    if (!mm || n.inputs.size() < 2 || !n.inputs[0].present() || !n.inputs[1].present()) continue;
    const size_t rank = n.outputs[0].rank();
    if (rank < 2 || rank > ops::MatMulDynamic::kMaxLayoutRank || !concrete(n.outputs[0])) continue;
    // Layouts are for operands of the result's rank (broadcast batches run without one).
    if (graph.fact(n.inputs[0]).rank() != rank || graph.fact(n.inputs[1]).rank() != rank) continue;
    ops::MatMulDynamic::Layout layout = mm->layout();
    std::vector<Outlet> inputs = n.inputs;
    bool folded = false;
    for (size_t s = 0; s < 2; s++) {
      const Fact& f = graph.fact(inputs[s]);
      if (f.rank() != rank || !concrete(f) || single_consumer(uses, inputs[s]) != n.id) continue;
      const Node& producer = graph.node(inputs[s].node);
      auto* t = op_as<ops::Transpose>(producer);
      if (!t || !producer.inputs[0].present() || graph.fact(producer.inputs[0]).rank() != rank)
        continue;
      // Transpose(Transpose(x, p), L): axis d is x's axis p[L[d]].
      std::vector<size_t>& perm = s == 0 ? layout.a : layout.b;
      perm = perm.empty() ? t->perm(rank) : compose(t->perm(rank), perm);
      inputs[s] = producer.inputs[0];
      folded = true;
    }
    Outlet result{n.id, 0};
    int reader = single_consumer(uses, result);
    Outlet replaced = result;
    if (reader >= 0) {
      const Node& rn = graph.node(reader);
      auto* t = op_as<ops::Transpose>(rn);
      if (t) {
        std::vector<size_t> q = t->perm(rank);
        if (q.back() == rank - 1) {
          // Transpose(Transpose(R, y), q): axis d is R's axis y[q[d]].
          layout.y = layout.y.empty() ? q : compose(layout.y, q);
          replaced = {reader, 0};
          folded = true;
        }
      }
    }
    if (!folded) continue;
    Fact expected = graph.fact(replaced);
    std::string name = n.name;
    int fused =
        patch.add_node(name, std::make_shared<ops::MatMulDynamic>(mm->reference(), layout), inputs);
    if (!graph.fact({fused, 0}).same_type_and_shape(expected)) continue;  // left for dead-nodes
    patch.shunt(replaced, {fused, 0});
  }
  return patch.commit();
}

}  // namespace kiln::passes
