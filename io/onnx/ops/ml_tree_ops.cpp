// ONNX translators for the ai.onnx.ml tree ensembles: TreeEnsembleRegressor and
// TreeEnsembleClassifier (1, 3, 5: nodes and leaf votes as parallel attribute lists keyed by
// tree and node id; *_as_tensor forms for double precision) and TreeEnsemble (5: interior nodes
// and leaves in separate tables). All become kiln's flat ml::Trees.
#include <cmath>
#include <map>
#include <set>

#include "io/onnx/ops/register_all.h"
#include "ops/ml/tree_ensemble.h"
#include "ops/ml/tree_ensemble_classifier.h"

namespace kiln::onnx_io {

namespace {

using ops::ml::NodeMode;
using ops::ml::Trees;

const std::string kMlDomain = "ai.onnx.ml";

std::vector<int64_t> ints(NodeContext& ctx, const std::string& name) {
  return ctx.attr_ints(name, std::vector<int64_t>{});
}

// A float list attribute, or its *_as_tensor form.
std::vector<double> reals(NodeContext& ctx, const std::string& name) {
  std::vector<double> out;
  if (ctx.has_attr(name + "_as_tensor")) {
    Tensor t = ctx.attr_tensor(name + "_as_tensor");
    for (int64_t i = 0; i < t.numel(); i++) out.push_back(t.value_as_double(i));
  } else {
    for (float v : ctx.attr_floats(name, std::vector<float>{})) out.push_back(v);
  }
  return out;
}

std::vector<double> tensor_reals(NodeContext& ctx, const std::string& name) {
  std::vector<double> out;
  if (!ctx.has_attr(name)) return out;
  Tensor t = ctx.attr_tensor(name);
  for (int64_t i = 0; i < t.numel(); i++) out.push_back(t.value_as_double(i));
  return out;
}

NodeMode legacy_mode(const std::string& m) {
  static const std::map<std::string, NodeMode> modes = {
      {"BRANCH_LEQ", NodeMode::Leq}, {"BRANCH_LT", NodeMode::Lt}, {"BRANCH_GTE", NodeMode::Gte},
      {"BRANCH_GT", NodeMode::Gt},   {"BRANCH_EQ", NodeMode::Eq}, {"BRANCH_NEQ", NodeMode::Neq},
      {"LEAF", NodeMode::Leaf}};
  auto it = modes.find(m);
  KILN_ENSURE(it != modes.end(), "tree ensemble: unknown node mode '{}'", m);
  return it->second;
}

// The legacy layout: nodes_* lists keyed by (tree id, node id); votes `prefix`_treeids,
// _nodeids, _ids, _weights on the leaves.
Trees legacy_trees(NodeContext& ctx, const std::string& prefix, int64_t n_targets) {
  auto tree_ids = ints(ctx, "nodes_treeids"), node_ids = ints(ctx, "nodes_nodeids");
  auto features = ints(ctx, "nodes_featureids");
  auto values = reals(ctx, "nodes_values");
  auto modes = ctx.attr_strings("nodes_modes");
  auto true_ids = ints(ctx, "nodes_truenodeids"), false_ids = ints(ctx, "nodes_falsenodeids");
  auto missing = ints(ctx, "nodes_missing_value_tracks_true");
  const size_t n = tree_ids.size();
  KILN_ENSURE(n > 0 && node_ids.size() == n && features.size() == n && modes.size() == n &&
                  true_ids.size() == n && false_ids.size() == n && values.size() == n &&
                  (missing.empty() || missing.size() == n),
              "{}: the nodes_* attributes must all have {} values", ctx.op_type(), n);
  std::map<std::pair<int64_t, int64_t>, int64_t> index;
  for (size_t i = 0; i < n; i++) {
    bool fresh =
        index.emplace(std::make_pair(tree_ids[i], node_ids[i]), static_cast<int64_t>(i)).second;
    KILN_ENSURE(fresh, "{}: node {} of tree {} appears twice", ctx.op_type(), node_ids[i],
                tree_ids[i]);
  }
  auto find = [&](int64_t tree, int64_t node) {
    auto it = index.find({tree, node});
    KILN_ENSURE(it != index.end(), "{}: tree {} has no node {}", ctx.op_type(), tree, node);
    return it->second;
  };
  Trees t;
  t.n_targets = n_targets;
  t.nodes.resize(n);
  std::set<int64_t> children;
  for (size_t i = 0; i < n; i++) {
    auto& node = t.nodes[i];
    node.mode = legacy_mode(modes[i]);
    node.feature = features[i];
    node.threshold = values[i];
    node.missing_tracks_true = !missing.empty() && missing[i] != 0;
    if (node.mode != NodeMode::Leaf) {
      node.true_child = find(tree_ids[i], true_ids[i]);
      node.false_child = find(tree_ids[i], false_ids[i]);
      children.insert(node.true_child);
      children.insert(node.false_child);
    }
  }
  std::set<int64_t> rooted;
  for (size_t i = 0; i < n; i++)
    if (!children.count(static_cast<int64_t>(i)) && rooted.insert(tree_ids[i]).second)
      t.roots.push_back(static_cast<int64_t>(i));
  auto v_trees = ints(ctx, prefix + "_treeids"), v_nodes = ints(ctx, prefix + "_nodeids");
  auto v_ids = ints(ctx, prefix + "_ids");
  auto v_weights = reals(ctx, prefix + "_weights");
  KILN_ENSURE(v_nodes.size() == v_trees.size() && v_ids.size() == v_trees.size() &&
                  v_weights.size() == v_trees.size(),
              "{}: the {}_* attributes must all have {} values", ctx.op_type(), prefix,
              v_trees.size());
  for (size_t i = 0; i < v_trees.size(); i++) {
    auto& leaf = t.nodes[static_cast<size_t>(find(v_trees[i], v_nodes[i]))];
    KILN_ENSURE(leaf.mode == NodeMode::Leaf, "{}: a vote on node {} of tree {}, not a leaf",
                ctx.op_type(), v_nodes[i], v_trees[i]);
    leaf.weights.push_back({v_ids[i], v_weights[i]});
  }
  t.validate(ctx.op_type());
  return t;
}

ops::ml::Aggregate aggregate_of(const std::string& s) {
  if (s == "SUM") return ops::ml::Aggregate::Sum;
  if (s == "AVERAGE") return ops::ml::Aggregate::Average;
  if (s == "MIN") return ops::ml::Aggregate::Min;
  if (s == "MAX") return ops::ml::Aggregate::Max;
  fail("unknown aggregate_function '{}'", s);
}

// TreeEnsemble-5: interior nodes 0..K-1, then the leaves.
Trees table_trees(NodeContext& ctx) {
  auto features = ints(ctx, "nodes_featureids");
  auto splits = tensor_reals(ctx, "nodes_splits");
  auto modes = tensor_reals(ctx, "nodes_modes");
  auto true_ids = ints(ctx, "nodes_truenodeids"), false_ids = ints(ctx, "nodes_falsenodeids");
  auto true_leaf = ints(ctx, "nodes_trueleafs"), false_leaf = ints(ctx, "nodes_falseleafs");
  auto missing = ints(ctx, "nodes_missing_value_tracks_true");
  auto members = tensor_reals(ctx, "membership_values");
  auto leaf_targets = ints(ctx, "leaf_targetids");
  auto leaf_weights = tensor_reals(ctx, "leaf_weights");
  const size_t k = features.size();
  KILN_ENSURE(splits.size() == k && modes.size() == k && true_ids.size() == k &&
                  false_ids.size() == k && true_leaf.size() == k && false_leaf.size() == k &&
                  (missing.empty() || missing.size() == k),
              "TreeEnsemble: the nodes_* attributes must all have {} values", k);
  KILN_ENSURE(leaf_targets.size() == leaf_weights.size(),
              "TreeEnsemble: {} leaf targets for {} weights", leaf_targets.size(),
              leaf_weights.size());
  Trees t;
  t.n_targets = ctx.attr_int("n_targets", 1);
  t.nodes.resize(k + leaf_targets.size());
  size_t member_at = 0;
  for (size_t i = 0; i < k; i++) {
    auto& node = t.nodes[i];
    int mode = static_cast<int>(modes[i]);
    KILN_ENSURE(mode >= 0 && mode <= 6, "TreeEnsemble: node mode {} (0..6)", mode);
    node.mode = static_cast<NodeMode>(mode);
    node.feature = features[i];
    node.threshold = splits[i];
    node.missing_tracks_true = !missing.empty() && missing[i] != 0;
    node.true_child = true_leaf[i] ? static_cast<int64_t>(k) + true_ids[i] : true_ids[i];
    node.false_child = false_leaf[i] ? static_cast<int64_t>(k) + false_ids[i] : false_ids[i];
    if (node.mode == NodeMode::Member) {
      while (member_at < members.size() && !std::isnan(members[member_at]))
        node.members.push_back(members[member_at++]);
      member_at++;  // the NaN that ends the set
    }
  }
  for (size_t j = 0; j < leaf_targets.size(); j++)
    t.nodes[k + j].weights.push_back({leaf_targets[j], leaf_weights[j]});
  for (int64_t r : ints(ctx, "tree_roots")) t.roots.push_back(r);
  t.validate("TreeEnsemble");
  return t;
}

}  // namespace

void register_ml_tree_ops(OpRegistry& registry) {
  registry.add(
      "TreeEnsembleRegressor",
      [](NodeContext& ctx) {
        int64_t targets = ctx.attr_int("n_targets", 1);
        ctx.wire(std::make_shared<ops::ml::TreeEnsemble>(
            "TreeEnsembleRegressor", legacy_trees(ctx, "target", targets),
            aggregate_of(ctx.attr_string("aggregate_function", "SUM")),
            ops::ml::parse_post_transform(ctx.attr_string("post_transform", "NONE")),
            reals(ctx, "base_values")));
      },
      kMlDomain);
  registry.add(
      "TreeEnsembleClassifier",
      [](NodeContext& ctx) {
        ops::ml::Labels labels;
        labels.ints = ints(ctx, "classlabels_int64s");
        labels.strings = ctx.attr_strings("classlabels_strings", std::vector<std::string>{});
        KILN_ENSURE(labels.size() > 0, "TreeEnsembleClassifier: no class labels");
        ctx.wire(std::make_shared<ops::ml::TreeEnsembleClassifier>(
            legacy_trees(ctx, "class", static_cast<int64_t>(labels.size())), labels,
            ops::ml::parse_post_transform(ctx.attr_string("post_transform", "NONE")),
            reals(ctx, "base_values"),
            ctx.has_attr("class_weights_as_tensor") || ctx.has_attr("base_values_as_tensor")));
      },
      kMlDomain);
  registry.add(
      "TreeEnsemble",
      [](NodeContext& ctx) {
        static const ops::ml::PostTransform transforms[] = {
            ops::ml::PostTransform::None, ops::ml::PostTransform::Softmax,
            ops::ml::PostTransform::Logistic, ops::ml::PostTransform::SoftmaxZero,
            ops::ml::PostTransform::Probit};
        int64_t pt = ctx.attr_int("post_transform", 0);
        int64_t agg = ctx.attr_int("aggregate_function", 1);
        KILN_ENSURE(pt >= 0 && pt <= 4 && agg >= 0 && agg <= 3,
                    "TreeEnsemble: post_transform {} / aggregate_function {} out of range", pt,
                    agg);
        ctx.wire(std::make_shared<ops::ml::TreeEnsemble>("TreeEnsemble", table_trees(ctx),
                                                         static_cast<ops::ml::Aggregate>(agg),
                                                         transforms[pt], std::vector<double>{}));
      },
      kMlDomain);
}

}  // namespace kiln::onnx_io
