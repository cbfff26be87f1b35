#include "passes/fold_scale.h"

#include <optional>
#include <set>

#include "core/patch.h"
#include "ops/elementwise/binary.h"
#include "ops/nn/matmul.h"
#include "ops/shape/flatten.h"
#include "ops/shape/reshape.h"
#include "ops/shape/squeeze.h"
#include "ops/shape/transpose.h"
#include "passes/graph_util.h"

namespace kiln::passes {

namespace {

bool moves_values_only(const Node& n) {
  return (op_as<ops::Reshape>(n) || op_as<ops::Transpose>(n) || op_as<ops::Squeeze>(n) ||
          op_as<ops::Unsqueeze>(n) || op_as<ops::Flatten>(n)) &&
         !n.inputs.empty() && n.inputs[0].present();
}

bool has_bias(const Node& mm) {
  return mm.inputs.size() > 2 && mm.inputs[2].present();
}

// The MatMul with constant weights a scalar multiplying `o` can move into, when every outlet
// from there to `o` has a single user (`user`, the node reading `o`).
std::optional<int> scale_target(const Graph& g, const Uses& uses, Outlet o, int user, int depth) {
  if (depth > 16 || !o.present() || g.fact(o).value || single_consumer(uses, o) != user)
    return std::nullopt;
  const Node& n = g.node(o.node);
  if (moves_values_only(n)) return scale_target(g, uses, n.inputs[0], n.id, depth + 1);
  if (!op_as<ops::MatMul>(n) || n.inputs.size() < 2) return std::nullopt;
  const Tensor* w = const_input(g, n, 1);
  if (w && w->rank() == 2 && is_float(w->dtype()) && (!has_bias(n) || const_input(g, n, 2)))
    return n.id;
  if (has_bias(n)) return std::nullopt;  // s * (A·B + b) is not (s * A)·B + b
  for (int side = 0; side < 2; side++)
    if (auto t = scale_target(g, uses, n.inputs[size_t(side)], n.id, depth + 1)) return t;
  return std::nullopt;
}

Tensor scaled(const Tensor& t, double s) {
  auto v = to_doubles(t);
  for (double& x : v) x *= s;
  return from_doubles(t.dtype(), t.shape(), v);
}

}  // namespace

size_t FoldScale::run(Graph& graph) {
  using K = ops::BinaryKind;
  ModelPatch patch(graph);
  Uses uses(graph);
  std::set<int> touched;
  size_t count = graph.size();
  for (size_t i = 0; i < count; i++) {
    const Node& n = graph.node(static_cast<int>(i));
    auto* bin = op_as<ops::Binary>(n);
    if (!bin || n.inputs.size() != 2 || (bin->kind() != K::Mul && bin->kind() != K::Div)) continue;
    int id = n.id;
    for (size_t side = 0; side < (bin->kind() == K::Mul ? 2u : 1u); side++) {
      const Node& user = graph.node(id);
      Outlet x = user.inputs[side];
      const Tensor* k = const_input(graph, user, 1 - side);
      if (!x.present() || !k || k->numel() != 1 || !is_float(k->dtype())) continue;
      if (!graph.fact(x).same_type_and_shape(graph.fact({id, 0}))) continue;
      double s = to_doubles(*k)[0];
      if (bin->kind() == K::Div) {
        if (s == 0) continue;
        s = 1.0 / s;
      }
      auto target = scale_target(graph, uses, x, id, 0);
      if (!target || touched.count(*target)) continue;
      const Node& mm = graph.node(*target);
      std::string name = mm.name;
      std::vector<Outlet> inputs = {mm.inputs[0]};
      Tensor w = scaled(*const_input(graph, mm, 1), s);
      std::optional<Tensor> b;
      if (has_bias(mm)) b = scaled(*const_input(graph, mm, 2), s);
      OpPtr op = mm.op;
      inputs.push_back(patch.add_const(name + ".weight", std::move(w)));
      if (b) inputs.push_back(patch.add_const(name + ".bias", std::move(*b)));
      patch.replace_op(*target, op, inputs);
      patch.shunt({id, 0}, x);
      touched.insert(*target);
      break;
    }
  }
  return patch.commit();
}

}  // namespace kiln::passes
