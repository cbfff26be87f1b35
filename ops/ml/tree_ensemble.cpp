#include "ops/ml/tree_ensemble.h"

#include <algorithm>
#include <cmath>

#include "base/error.h"

namespace kiln::ops::ml {

void Trees::validate(const std::string& op) const {
  KILN_ENSURE(!roots.empty(), "{}: no trees", op);
  KILN_ENSURE(n_targets > 0, "{}: {} targets", op, n_targets);
  auto ok = [&](int64_t i) { return i >= 0 && i < static_cast<int64_t>(nodes.size()); };
  for (int64_t r : roots) KILN_ENSURE(ok(r), "{}: tree root {} is not a node", op, r);
  for (const auto& n : nodes) {
    if (n.mode == NodeMode::Leaf) {
      for (const auto& [t, w] : n.weights)
        KILN_ENSURE(t >= 0 && t < n_targets, "{}: leaf weight for target {} of {}", op, t,
                    n_targets);
      continue;
    }
    KILN_ENSURE(ok(n.true_child) && ok(n.false_child) && n.feature >= 0,
                "{}: node with children {} / {} or feature {} out of range", op, n.true_child,
                n.false_child, n.feature);
  }
}

const TreeNode& Trees::leaf(int64_t root, const float* x, int64_t features) const {
  const TreeNode* n = &nodes[static_cast<size_t>(root)];
  for (size_t steps = 0; n->mode != NodeMode::Leaf; steps++) {
    KILN_ENSURE(steps <= nodes.size(), "tree ensemble: a tree has a cycle");
    KILN_ENSURE(n->feature < features, "tree ensemble: feature {} of {}", n->feature, features);
    const double v = x[n->feature];
    bool go_true;
    if (n->missing_tracks_true && std::isnan(v)) {
      go_true = true;
    } else {
      switch (n->mode) {
        case NodeMode::Leq:
          go_true = v <= n->threshold;
          break;
        case NodeMode::Lt:
          go_true = v < n->threshold;
          break;
        case NodeMode::Gte:
          go_true = v >= n->threshold;
          break;
        case NodeMode::Gt:
          go_true = v > n->threshold;
          break;
        case NodeMode::Eq:
          go_true = v == n->threshold;
          break;
        case NodeMode::Neq:
          go_true = v != n->threshold;
          break;
        default:
          go_true = std::find(n->members.begin(), n->members.end(), v) != n->members.end();
      }
    }
    n = &nodes[static_cast<size_t>(go_true ? n->true_child : n->false_child)];
  }
  return *n;
}

Attributes TreeEnsemble::attributes() const {
  static const char* agg[] = {"AVERAGE", "SUM", "MIN", "MAX"};
  return {{"trees", std::to_string(trees_.roots.size())},
          {"n_targets", std::to_string(trees_.n_targets)},
          {"aggregate_function", agg[static_cast<int>(aggregate_)]},
          {"post_transform", post_transform_name(transform_)}};
}

std::vector<Fact> TreeEnsemble::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& x = required(inputs, 0, name());
  KILN_ENSURE(is_numeric(x.dt), "{}: input must be numeric, got {}", name(), name_of(x.dt));
  Dim n;
  rows_of(x.shape, name(), &n);
  DatumType out = op_name_ == "TreeEnsemble" && is_float(x.dt) ? x.dt : DatumType::F32;
  return {Fact(out, std::vector<Dim>{n, trees_.n_targets})};
}

Cost TreeEnsemble::cost(const FactRefs& inputs) const {
  Cost c;
  c.other = required(inputs, 0, name()).volume();
  return c;
}

void TreeEnsemble::score_row(const float* x, int64_t features, double* scores, bool* has) const {
  std::fill(scores, scores + trees_.n_targets, 0.0);
  std::fill(has, has + trees_.n_targets, false);
  for (int64_t root : trees_.roots) {
    for (const auto& [t, w] : trees_.leaf(root, x, features).weights) {
      double& s = scores[t];
      switch (aggregate_) {
        case Aggregate::Sum:
        case Aggregate::Average:
          s += w;
          break;
        case Aggregate::Min:
          s = has[t] ? std::min(s, w) : w;
          break;
        case Aggregate::Max:
          s = has[t] ? std::max(s, w) : w;
          break;
      }
      has[t] = true;
    }
  }
}

void TreeEnsemble::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& x = required(inputs, 0, name());
  Rows r = rows_of(x.shape(), name());
  const int64_t targets = trees_.n_targets;
  DatumType out_dt = op_name_ == "TreeEnsemble" && is_float(x.dtype()) ? x.dtype() : DatumType::F32;
  Shape& shape = ctx.temp_shape(0);
  shape.assign({r.n, targets});
  Tensor& y = ctx.output(0, out_dt, shape);
  float* xf = ctx.scratch<float>(static_cast<size_t>(x.numel()));
  read_floats(x, xf);
  double* scores = ctx.scratch<double>(static_cast<size_t>(targets));
  bool* has = ctx.scratch<bool>(static_cast<size_t>(targets));
  float* row = ctx.scratch<float>(static_cast<size_t>(targets));
  const bool per_target_base = base_values_.size() == static_cast<size_t>(targets);
  const double origin = base_values_.size() == 1 ? base_values_[0] : 0.0;
  const double n_trees = static_cast<double>(trees_.roots.size());
  for (int64_t i = 0; i < r.n; i++) {
    score_row(xf + i * r.c, r.c, scores, has);
    for (int64_t t = 0; t < targets; t++) {
      double base = per_target_base ? base_values_[static_cast<size_t>(t)]
                    : targets == 1  ? origin
                                    : 0;
      double s = scores[t];
      if (aggregate_ == Aggregate::Average) s /= n_trees;
      if (!has[t]) s = 0;
      // A target no leaf reached stays 0 when there are several (ONNX Runtime adds the base
      // value only to the targets some tree scored); a single target always gets its base.
      row[t] = static_cast<float>(has[t] || targets == 1 ? s + base : 0.0);
    }
    if (targets > 1 || transform_ == PostTransform::Probit) transform_row(transform_, row, targets);
    dispatch_numeric(out_dt, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* yd = y.data<T>();
      for (int64_t t = 0; t < targets; t++) yd[i * targets + t] = static_cast<T>(row[t]);
    });
  }
}

}  // namespace kiln::ops::ml
