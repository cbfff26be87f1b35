#include "passes/fold_affine.h"

#include <algorithm>
#include <optional>
#include <set>

#include "core/patch.h"
#include "ops/elementwise/binary.h"
#include "ops/nn/conv.h"
#include "ops/nn/matmul.h"
#include "passes/graph_util.h"

namespace kiln::passes {

namespace {

// Multiplies the slices of `w` along `axis` by s (one value per slice, or one for all).
Tensor scale_along(const Tensor& w, size_t axis, const std::vector<double>& s) {
  auto v = to_doubles(w);
  int64_t inner = 1;
  for (size_t d = axis + 1; d < w.rank(); d++) inner *= w.dim(d);
  int64_t n = w.dim(axis);
  for (size_t i = 0; i < v.size(); i++) {
    size_t channel = static_cast<size_t>((static_cast<int64_t>(i) / inner) % n);
    v[i] *= s.size() == 1 ? s[0] : s[channel];
  }
  return from_doubles(w.dtype(), w.shape(), v);
}

// Rewrites a Conv whose output is multiplied (or increased) by per-channel constants.
// (Ids, not references: adding nodes moves them.)
bool fold_into_conv(ModelPatch& patch, int conv_id, int user_id, bool is_mul,
                    const std::vector<double>& k) {
  Graph& g = patch.graph();
  const Node& conv = g.node(conv_id);
  const Tensor* w = const_input(g, conv, 1);
  const Tensor* b = const_input(g, conv, 2);
  if (!w || w->rank() < 2 || (conv.inputs.size() > 2 && conv.inputs[2].present() && !b))
    return false;
  int64_t m = w->dim(0);
  if (k.size() != 1 && static_cast<int64_t>(k.size()) != m) return false;
  std::vector<double> bias = b ? to_doubles(*b) : std::vector<double>(static_cast<size_t>(m), 0.0);
  if (static_cast<int64_t>(bias.size()) != m) return false;
  for (size_t c = 0; c < bias.size(); c++) {
    double kc = k.size() == 1 ? k[0] : k[c];
    bias[c] = is_mul ? bias[c] * kc : bias[c] + kc;
  }
  std::string name = conv.name;
  std::vector<Outlet> inputs = {conv.inputs[0], conv.inputs[1]};
  DatumType dt = w->dtype();
  if (is_mul) inputs[1] = patch.add_const(name + ".weight", scale_along(*w, 0, k));
  inputs.push_back(patch.add_const(name + ".bias", from_doubles(dt, {m}, bias)));
  patch.replace_op(conv_id, g.node(conv_id).op, inputs);
  patch.shunt({user_id, 0}, {conv_id, 0});
  return true;
}

// The bias of a MatMul after `k` is added (or, `is_mul`, after it is multiplied by k), as a
// constant outlet; nullopt when the current bias is not a constant. A bias made of the added
// constant alone reuses it (or a 1-D copy keeping its name: writing the result as NNEF and
// reading it back then gives the same names).
std::optional<Outlet> matmul_bias(ModelPatch& patch, const Node& mm, Outlet added, bool is_mul,
                                  const std::vector<double>& k, int64_t n) {
  Graph& g = patch.graph();
  bool has_bias = mm.inputs.size() > 2 && mm.inputs[2].present();
  const Tensor* b = has_bias ? const_input(g, mm, 2) : nullptr;
  if (has_bias && !b) return std::nullopt;
  if (is_mul && !has_bias) return Outlet{};
  DatumType dt = g.fact(mm.inputs[0]).dt;
  if (!has_bias && added.present()) {
    const Fact& f = g.fact(added);
    if (f.rank() == 1 && f.shape[0] == Dim(n)) return added;
    if (f.value && f.value->numel() == n) {
      std::string name = g.node(added.node).name;  // (a copy: adding a node moves the nodes)
      return patch.add_const(name, f.value->reshaped({n}));
    }
  }
  std::vector<double> bias = b ? to_doubles(*b) : std::vector<double>(size_t(n), 0.0);
  if (static_cast<int64_t>(bias.size()) != n) return std::nullopt;
  for (size_t c = 0; c < bias.size(); c++) {
    double kc = k.size() == 1 ? k[0] : k[c];
    bias[c] = is_mul ? bias[c] * kc : bias[c] + kc;
  }
  return patch.add_const(mm.name + ".bias", from_doubles(dt, {n}, bias));
}

// MatMul(x, W, b) * s -> MatMul(x, W * s, b * s) (W constant); MatMul(x, W, b) + c ->
// MatMul(x, W, b + c) (any W). `added`: the constant outlet of an Add (to reuse it as the bias).
bool fold_into_matmul(ModelPatch& patch, int mm_id, int user_id, bool is_mul, Outlet added,
                      const std::vector<double>& k) {
  Graph& g = patch.graph();
  const Node& mm = g.node(mm_id);
  const Fact& b_fact = g.fact(mm.inputs[1]);
  if (b_fact.rank() < 2 || !b_fact.shape.back().is_int()) return false;
  int64_t n = b_fact.shape.back().to_int();
  if (k.size() != 1 && static_cast<int64_t>(k.size()) != n) return false;
  const Tensor* w = const_input(g, mm, 1);
  if (is_mul && (!w || w->rank() != 2)) return false;
  auto bias = matmul_bias(patch, g.node(mm_id), added, is_mul, k, n);
  if (!bias) return false;
  const Node& node = g.node(mm_id);
  std::vector<Outlet> inputs = {node.inputs[0], node.inputs[1]};
  OpPtr op = node.op;
  if (is_mul) inputs[1] = patch.add_const(node.name + ".weight", scale_along(*w, 1, k));
  if (bias->present()) inputs.push_back(*bias);
  // The result is the user's value and takes its name (so a MatMul + Add written as NNEF and
  // read back folds into a node of the same name).
  std::string name = g.node(user_id).name;
  patch.shunt({user_id, 0}, {patch.add_node(name, op, inputs), 0});
  return true;
}

}  // namespace

size_t FoldAffine::run(Graph& graph) {
  using K = ops::BinaryKind;
  ModelPatch patch(graph);
  Uses uses(graph);
  std::set<int> touched;
  size_t count = graph.size();
  for (size_t i = 0; i < count; i++) {
    const Node& user = graph.node(static_cast<int>(i));
    auto* bin = op_as<ops::Binary>(user);
    if (!bin || user.inputs.size() != 2) continue;
    K kind = bin->kind();
    if (kind != K::Mul && kind != K::Add && kind != K::Sub && kind != K::Div) continue;
    // x * k, x + k, x - k (= x + -k), x / k (= x * 1/k); k * x and k + x too.
    bool is_mul = kind == K::Mul || kind == K::Div;
    bool commutes = kind == K::Mul || kind == K::Add;
    int user_id = user.id;
    for (size_t side = 0; side < (commutes ? 2u : 1u); side++) {
      Outlet from = graph.node(user_id).inputs[side];
      Outlet konst = graph.node(user_id).inputs[1 - side];
      const Tensor* k = const_input(graph, graph.node(user_id), 1 - side);
      if (!from.present() || !k || touched.count(from.node)) continue;
      if (single_consumer(uses, from) != user_id) continue;
      const Node& producer = graph.node(from.node);
      const Fact& out = graph.fact({user_id, 0});
      if (!graph.fact(from).same_type_and_shape(out)) continue;  // no broadcast growth
      size_t rank = out.rank();
      bool is_conv = op_as<ops::Conv>(producer) != nullptr;
      bool is_matmul = op_as<ops::MatMul>(producer) != nullptr && rank >= 1;
      if (!is_conv && !is_matmul) continue;
      auto values = values_along_axis(*k, rank, is_conv ? 1 : rank - 1);
      if (!values) continue;
      if (kind == K::Div) {
        if (std::find(values->begin(), values->end(), 0.0) != values->end()) continue;
        for (double& v : *values) v = 1.0 / v;
      } else if (kind == K::Sub) {
        for (double& v : *values) v = -v;
      }
      Outlet added = kind == K::Add ? konst : Outlet{};
      bool done = is_conv ? fold_into_conv(patch, from.node, user_id, is_mul, *values)
                          : fold_into_matmul(patch, from.node, user_id, is_mul, added, *values);
      if (done) {
        touched.insert(from.node);
        break;
      }
    }
  }
  return patch.commit();
}

}  // namespace kiln::passes
