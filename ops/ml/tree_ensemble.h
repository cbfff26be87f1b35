// Tree ensembles (ai.onnx.ml TreeEnsembleRegressor / TreeEnsembleClassifier 1-5, TreeEnsemble
// 5): the trees in one flat form -- interior nodes comparing one feature with a threshold (or a
// set, BRANCH_MEMBER), leaves holding (target, weight) pairs -- and the aggregation over the
// trees (sum, average, min, max), base values and post-transform, following ONNX Runtime's
// conventions where the spec leaves room (a target no leaf reached counts as 0 for sum and
// average and is left at the base value for min and max).
#pragma once

#include <vector>

#include "core/op.h"
#include "ops/ml/ml_common.h"

namespace kiln::ops::ml {

enum class NodeMode : uint8_t { Leq, Lt, Gte, Gt, Eq, Neq, Member, Leaf };
enum class Aggregate : uint8_t { Average, Sum, Min, Max };

struct TreeNode {
  NodeMode mode = NodeMode::Leaf;
  int64_t feature = 0;
  double threshold = 0;
  std::vector<double> members;                // BRANCH_MEMBER
  int64_t true_child = -1, false_child = -1;  // node indices
  bool missing_tracks_true = false;
  std::vector<std::pair<int64_t, double>> weights;  // leaves: (target, weight)
  bool operator==(const TreeNode&) const = default;
};

struct Trees {
  std::vector<TreeNode> nodes;
  std::vector<int64_t> roots;
  int64_t n_targets = 1;
  bool operator==(const Trees&) const = default;
  // Checks indices; throws naming what is wrong.
  void validate(const std::string& op) const;
  // The leaf x ends in, for the tree rooted at `root` (x holds the row's features).
  const TreeNode& leaf(int64_t root, const float* x, int64_t features) const;
};

class TreeEnsemble : public Op {
 public:
  // `op_name`: TreeEnsembleRegressor or TreeEnsemble (the output type follows the input for
  // TreeEnsemble, is float for the regressor).
  TreeEnsemble(std::string op_name, Trees trees, Aggregate aggregate, PostTransform transform,
               std::vector<double> base_values)
      : op_name_(std::move(op_name)),
        trees_(std::move(trees)),
        aggregate_(aggregate),
        transform_(transform),
        base_values_(std::move(base_values)) {}
  std::string name() const override { return op_name_; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const TreeEnsemble& o) {
      return std::tie(o.op_name_, o.trees_, o.aggregate_, o.transform_, o.base_values_);
    });
  }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;

  // Raw aggregated scores of one row (before base values and transform); `has` marks the
  // targets some leaf reached.
  void score_row(const float* x, int64_t features, double* scores, bool* has) const;

 private:
  std::string op_name_;
  Trees trees_;
  Aggregate aggregate_;
  PostTransform transform_;
  std::vector<double> base_values_;
};

}  // namespace kiln::ops::ml
