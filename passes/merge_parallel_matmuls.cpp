#include "passes/merge_parallel_matmuls.h"

#include <cstring>
#include <map>

#include "core/patch.h"
#include "ops/nn/matmul.h"
#include "ops/shape/split.h"
#include "passes/graph_util.h"

namespace kiln::passes {

namespace {

// Concatenates row-major matrices [K, N_i] along their columns.
Tensor concat_columns(const std::vector<const Tensor*>& parts) {
  int64_t k = parts[0]->dim(0), n = 0;
  for (const Tensor* p : parts) n += p->dim(1);
  DatumType dt = parts[0]->dtype();
  size_t es = size_of(dt);
  Tensor out(dt, Shape{k, n});
  auto* dst = static_cast<char*>(out.raw_data());
  int64_t col = 0;
  for (const Tensor* p : parts) {
    Tensor c = p->clone();  // contiguous
    const auto* src = static_cast<const char*>(c.raw_data());
    int64_t w = p->dim(1);
    for (int64_t r = 0; r < k; r++)
      std::memcpy(dst + static_cast<size_t>(r * n + col) * es,
                  src + static_cast<size_t>(r * w) * es, static_cast<size_t>(w) * es);
    col += w;
  }
  return out;
}

}  // namespace

size_t MergeParallelMatMuls::run(Graph& graph) {
  ModelPatch patch(graph);
  // Candidate MatMuls grouped by input outlet.
  std::map<Outlet, std::vector<int>> groups;
  for (const auto& n : graph.nodes()) {
    if (!op_as<ops::MatMul>(n) || n.inputs.size() < 2 || !n.inputs[0].present()) continue;
    bool has_bias = n.inputs.size() > 2 && n.inputs[2].present();
    if (has_bias && !const_input(graph, n, 2)) continue;
    const Tensor* w = const_input(graph, n, 1);
    const Fact& x = graph.fact(n.inputs[0]);
    if (!w || w->rank() != 2 || x.rank() < 1 || w->dtype() == DatumType::String) continue;
    groups[n.inputs[0]].push_back(n.id);
  }
  for (auto& [x, ids] : groups) {
    // Same weight depth and type as the first.
    std::vector<int> members;
    std::vector<const Tensor*> weights;
    for (int id : ids) {
      const Tensor* w = const_input(graph, graph.node(id), 1);
      if (!weights.empty() &&
          (w->dim(0) != weights[0]->dim(0) || w->dtype() != weights[0]->dtype()))
        continue;
      members.push_back(id);
      weights.push_back(w);
    }
    if (members.size() < 2) continue;
    std::vector<int64_t> sizes;
    for (const Tensor* w : weights) sizes.push_back(w->dim(1));
    std::string name = graph.node(members[0]).name;
    Tensor merged = concat_columns(weights);
    // Biases side by side (zeros for a member without one).
    std::vector<Tensor> biases;
    bool any_bias = false;
    for (size_t k = 0; k < members.size(); k++) {
      const Tensor* b = const_input(graph, graph.node(members[k]), 2);
      any_bias = any_bias || b;
      biases.push_back(b ? b->reshaped({1, sizes[k]}) : Tensor(weights[k]->dtype(), {1, sizes[k]}));
      if (!b) std::memset(biases.back().raw_data(), 0, biases.back().nbytes());
    }
    std::vector<Outlet> inputs = {x, patch.add_const(name + ".merged_weight", std::move(merged))};
    if (any_bias) {
      std::vector<const Tensor*> parts;
      for (const Tensor& b : biases) parts.push_back(&b);
      Tensor bias = concat_columns(parts);
      inputs.push_back(patch.add_const(name + ".merged_bias", bias.reshaped({bias.numel()})));
    }
    int mm = patch.add_node(name + ".merged", std::make_shared<ops::MatMul>(), inputs);
    int rank = static_cast<int>(graph.fact({mm, 0}).rank());
    int split = patch.add_node(name + ".split",
                               std::make_shared<ops::Split>(rank - 1, members.size(), sizes),
                               {{mm, 0}}, members.size());
    for (size_t k = 0; k < members.size(); k++)
      patch.shunt({members[k], 0}, {split, static_cast<int>(k)});
  }
  return patch.commit();
}

}  // namespace kiln::passes
