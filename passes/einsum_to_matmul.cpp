#include "passes/einsum_to_matmul.h"

#include <algorithm>
#include <optional>

#include "core/patch.h"
#include "ops/linalg/einsum.h"
#include "ops/nn/matmul.h"
#include "ops/shape/reshape.h"
#include "ops/shape/transpose.h"
#include "passes/graph_util.h"

namespace kiln::passes {

namespace {

bool has_repeats(std::vector<int> labels) {
  std::sort(labels.begin(), labels.end());
  return std::adjacent_find(labels.begin(), labels.end()) != labels.end();
}

size_t position(const std::vector<int>& labels, int l) {
  return static_cast<size_t>(std::find(labels.begin(), labels.end(), l) - labels.begin());
}

bool contains(const std::vector<int>& labels, int l) {
  return position(labels, l) < labels.size();
}

// The product of dims, or nullopt when one is not a known integer or it overflows.
std::optional<int64_t> product(const std::vector<Dim>& dims) {
  int64_t p = 1;
  for (const Dim& d : dims) {
    auto v = d.as_int();
    if (!v || __builtin_mul_overflow(p, *v, &p)) return std::nullopt;  // (hostile dims: decline)
  }
  return p;
}

// A reshape target: `keep` leading dims copied (0), then one entry per group -- its product, or
// -1 for the one group whose size is not known; nullopt when two are not known.
std::optional<std::vector<int64_t>> target(size_t keep,
                                           const std::vector<std::vector<Dim>>& groups) {
  std::vector<int64_t> t(keep, 0);
  bool unknown = false;
  for (const auto& g : groups) {
    auto p = product(g);
    if (!p) {
      if (unknown) return std::nullopt;
      unknown = true;
    }
    t.push_back(p ? *p : -1);
  }
  return t;
}

bool identity(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); i++)
    if (perm[i] != static_cast<int64_t>(i)) return false;
  return true;
}

}  // namespace

size_t EinsumToMatMul::run(Graph& graph) {
  ModelPatch patch(graph);
  const size_t count = graph.size();
  for (size_t i = 0; i < count; i++) {
    const Node& n = graph.node(static_cast<int>(i));
    const auto* op = op_as<ops::Einsum>(n);
    if (!op || n.inputs.size() != 2 || !n.inputs[0].present() || !n.inputs[1].present()) continue;
    const Fact& fa = graph.fact(n.inputs[0]);
    const Fact& fb = graph.fact(n.inputs[1]);
    if (fa.dt != DatumType::F32 || fb.dt != DatumType::F32) continue;
    ops::Einsum::Resolved r;
    try {
      r = op->resolve({fa.rank(), fb.rank()});
    } catch (const Error&) {
      continue;
    }
    const auto &la = r.inputs[0], &lb = r.inputs[1], &lo = r.output;
    if (has_repeats(la) || has_repeats(lb) || has_repeats(lo)) continue;
    // Classify: batch labels in the output's order, free ones in their input's order,
    // contracted ones in A's order.
    std::vector<int> batch, free_a, free_b, contracted;
    bool ok = true;
    for (int l : lo) {
      if (contains(la, l) && contains(lb, l)) batch.push_back(l);
    }
    for (int l : la) {
      if (contains(lb, l)) {
        if (!contains(lo, l)) contracted.push_back(l);
      } else if (contains(lo, l)) {
        free_a.push_back(l);
      } else {
        ok = false;  // summed in A only
      }
    }
    for (int l : lb)
      if (!contains(la, l)) {
        if (contains(lo, l))
          free_b.push_back(l);
        else
          ok = false;  // summed in B only
      }
    if (!ok) continue;
    // Contracted labels must have one size (Einsum would broadcast a 1 along them).
    for (int l : contracted)
      if (!(fa.shape[position(la, l)] == fb.shape[position(lb, l)])) ok = false;
    if (!ok) continue;
    // One operand on the left of the MatMul, the other on the right: both orders are tried
    // (y = A B or y = B A with the output permuted back), and the one that transposes fewer
    // run-time tensors is taken -- a transpose of a constant folds away at optimize, so a
    // "nchw,dc->ndhw" runs as one MatMul of the weights by the input's rows, no transposes.
    struct Side {
      Outlet in;
      const Fact* fact;
      const std::vector<int>* labels;
      const std::vector<int>* free;
      bool constant;
    };
    const Side side_a{n.inputs[0], &fa, &la, &free_a, const_input(graph, n, 0) != nullptr};
    const Side side_b{n.inputs[1], &fb, &lb, &free_b, const_input(graph, n, 1) != nullptr};
    struct Plan {
      const Side* left;
      const Side* right;
      std::vector<int64_t> perm_left, perm_right, perm_out;
      std::optional<std::vector<int64_t>> shape_left, shape_right, shape_out;
      bool merge_left, merge_right, split_out;
      int cost;
    };
    const size_t nb = batch.size();
    auto dims = [](const Side& s, const std::vector<int>& which) {
      std::vector<Dim> d;
      for (int l : which) d.push_back(s.fact->shape[position(*s.labels, l)]);
      return d;
    };
    auto perm = [](const Side& s, std::vector<const std::vector<int>*> groups) {
      std::vector<int64_t> p;
      for (const auto* g : groups)
        for (int l : *g) p.push_back(static_cast<int64_t>(position(*s.labels, l)));
      return p;
    };
    // `lift`: with no batch labels, the right operand's free labels before its first
    // contracted one become leading batch axes of the product, which the 2-D left operand
    // broadcasts over ("nchw,dc->ndhw": [d, c] x [n, c, h * w], n lifted, nothing transposed).
    auto plan = [&](const Side& l, const Side& r, bool lift) -> std::optional<Plan> {
      std::vector<int> lifted, r_free = *r.free;
      if (lift) {
        if (nb > 0) return std::nullopt;
        for (int label : *r.labels) {
          if (!contains(r_free, label)) break;
          lifted.push_back(label);
        }
        if (lifted.empty()) return std::nullopt;
        r_free.erase(r_free.begin(), r_free.begin() + static_cast<std::ptrdiff_t>(lifted.size()));
      }
      const std::vector<int>& r_batch = lift ? lifted : batch;
      const size_t rb = r_batch.size();
      Plan p{&l,
             &r,
             perm(l, {&batch, l.free, &contracted}),
             perm(r, {&r_batch, &contracted, &r_free}),
             {},
             target(nb, {dims(l, *l.free), dims(l, contracted)}),
             target(rb, {dims(r, contracted), dims(r, r_free)}),
             std::nullopt,
             l.free->size() != 1 || contracted.size() != 1,
             r_free.size() != 1 || contracted.size() != 1,
             l.free->size() != 1 || r_free.size() != 1,
             0};
      std::vector<std::vector<Dim>> out_groups;
      for (const Dim& d : dims(l, *l.free)) out_groups.push_back({d});
      for (const Dim& d : dims(r, r_free)) out_groups.push_back({d});
      p.shape_out = target(rb, out_groups);
      if ((p.merge_left && !p.shape_left) || (p.merge_right && !p.shape_right) ||
          (p.split_out && !p.shape_out))
        return std::nullopt;
      // The product's axes: batch (output order) or the lifted ones, the left's free ones, the
      // right's.
      std::vector<int> y_labels = r_batch;
      y_labels.insert(y_labels.end(), l.free->begin(), l.free->end());
      y_labels.insert(y_labels.end(), r_free.begin(), r_free.end());
      for (int label : lo) p.perm_out.push_back(static_cast<int64_t>(position(y_labels, label)));
      p.cost = (!identity(p.perm_left) && !l.constant) + (!identity(p.perm_right) && !r.constant) +
               !identity(p.perm_out);
      return p;
    };
    std::optional<Plan> best;
    for (const auto& [l, r] : {std::pair{&side_a, &side_b}, std::pair{&side_b, &side_a}})
      for (bool lift : {false, true})
        if (std::optional<Plan> q = plan(*l, *r, lift); q && (!best || q->cost < best->cost))
          best = q;
    if (!best) continue;
    const Plan& p = *best;
    const bool permute_out = !identity(p.perm_out);

    // The last node keeps the Einsum's name.
    const std::string name = n.name;
    auto transpose = [&](Outlet x, std::vector<int64_t> perm, const std::string& node_name) {
      if (identity(perm)) return x;
      return Outlet{patch.add_node(node_name, std::make_shared<ops::Transpose>(perm), {x}), 0};
    };
    auto reshape = [&](Outlet x, const std::vector<int64_t>& t, const std::string& node_name) {
      Outlet shape = patch.add_const(node_name + ".shape",
                                     Tensor::from_vector<int64_t>({int64_t(t.size())}, t));
      return Outlet{patch.add_node(node_name, std::make_shared<ops::Reshape>(), {x, shape}), 0};
    };
    Outlet a = transpose(p.left->in, p.perm_left, name + ".left_order");
    if (p.merge_left) a = reshape(a, *p.shape_left, name + ".left_rows");
    Outlet b = transpose(p.right->in, p.perm_right, name + ".right_order");
    if (p.merge_right) b = reshape(b, *p.shape_right, name + ".right_cols");
    Outlet y = {patch.add_node(p.split_out || permute_out ? name + ".matmul" : name,
                               std::make_shared<ops::MatMul>(), {a, b}),
                0};
    if (p.split_out) y = reshape(y, *p.shape_out, permute_out ? name + ".split" : name);
    y = transpose(y, p.perm_out, name);
    patch.shunt({n.id, 0}, y);
  }
  return patch.commit();
}

}  // namespace kiln::passes
