#include "passes/fold_constants.h"

#include <fmt/format.h>

#include "core/patch.h"
#include "core/source_ops.h"
#include "ops/quant/dequantize_linear.h"
#include "passes/graph_util.h"

namespace kiln::passes {

namespace {

// The value of a fact: its constant, or its concrete integer dims_value.
std::optional<Tensor> known_value(const Fact& f) {
  if (f.value) return *f.value;
  if (!f.dims_value || !is_integer(f.dt)) return std::nullopt;
  auto shape = f.try_concrete_shape();
  auto values = f.known_i64_values();
  if (!shape || !values) return std::nullopt;
  int64_t numel = 1;
  for (int64_t d : *shape) numel *= d;
  if (numel != static_cast<int64_t>(values->size())) return std::nullopt;
  Tensor t = Tensor::from_vector<int64_t>(*shape, *values);
  return f.dt == DatumType::I64 ? t : t.cast_to(f.dt);
}

}  // namespace

bool is_dequantized_constant(const Graph& graph, const Node& n) {
  if (!op_as<ops::DequantizeLinear>(n) || n.inputs.empty() || !n.inputs[0].present()) return false;
  const Fact& x = graph.fact(n.inputs[0]);
  return x.value != nullptr && is_integer(x.dt);
}

size_t FoldConstants::run(Graph& graph) {
  ModelPatch patch(graph);
  Uses uses(graph);
  size_t count = graph.size();
  for (size_t i = 0; i < count; i++) {
    const Node& n = graph.node(static_cast<int>(i));
    if (op_as<ConstOp>(n) || !n.op->is_deterministic()) continue;
    if (keep_quantized_ && is_dequantized_constant(graph, n)) continue;
    std::vector<std::pair<int, Tensor>> folds;
    for (size_t slot = 0; slot < n.outputs.size(); slot++) {
      Outlet o{n.id, static_cast<int>(slot)};
      if (!uses.used(o)) continue;
      if (auto v = known_value(n.outputs[slot])) folds.emplace_back(o.slot, std::move(*v));
    }
    std::string name = n.name;
    int id = n.id;
    size_t num_outputs = n.outputs.size();
    for (auto& [slot, value] : folds) {
      Outlet c = patch.add_const(num_outputs > 1 ? fmt::format("{}.{}", name, slot) : name,
                                 std::move(value));
      patch.shunt({id, slot}, c);
    }
  }
  return patch.commit();
}

}  // namespace kiln::passes
