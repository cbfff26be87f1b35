// Graph: nodes with numbered output outlets, named inputs (Source nodes) and outputs.
// A node's inputs are outlets of earlier nodes; an absent optional input is Outlet{}.
// Nested graphs (If branches, Loop bodies) are Graphs owned by their op.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/fact.h"
#include "core/op.h"

namespace kiln {

struct Outlet {
  int node = -1;
  int slot = 0;
  bool present() const { return node >= 0; }
  bool operator==(const Outlet& o) const { return node == o.node && slot == o.slot; }
  bool operator!=(const Outlet& o) const { return !(*this == o); }
  bool operator<(const Outlet& o) const { return node != o.node ? node < o.node : slot < o.slot; }
};

// The last constant fold of a node: the op and the input values it was computed from (held, so
// that neither can be freed and another take its address) and the output facts it gave.
struct FoldMemo {
  OpPtr op;
  std::vector<std::shared_ptr<const Tensor>> inputs;
  std::vector<Fact> outputs;
};

struct Node {
  int id = -1;
  std::string name;
  OpPtr op;
  std::vector<Outlet> inputs;
  std::vector<Fact> outputs;  // one fact per output slot (filled by analyse())
  // analyse() folds a node whose inputs are all constants after every pass; when neither its op
  // nor its input values changed since the last fold, the memo's facts are reused instead of
  // evaluating again (a quantized model's weights are DequantizeLinear nodes kept unfolded).
  std::shared_ptr<const FoldMemo> fold;
};

class Graph {
 public:
  // Adds a model input with this fact.
  Outlet add_source(const std::string& name, Fact fact);
  // Adds a constant node holding this tensor.
  Outlet add_const(const std::string& name, Tensor value);
  // Adds a node with `num_outputs` declared outputs; facts come from analyse() (or, when
  // `compute_facts` is set, right away from its inputs' facts).
  int add_node(const std::string& name, OpPtr op, std::vector<Outlet> inputs,
               size_t num_outputs = 1, bool compute_facts = false);

  // Computes every node's output facts from its inputs', in dependency order, folding nodes
  // whose inputs are all constants into known values. Errors name the node.
  void analyse();
  // Computes the output facts of one node from its inputs' current facts.
  void analyse_node(int id);

  // Nodes live in a deque: adding a node never moves the others, so a `Node&` stays valid while
  // a loader or pass adds nodes (the Gradient builder once read a node moved by a vector's
  // growth: a fuzzing finding).
  const std::deque<Node>& nodes() const { return nodes_; }
  Node& node(int id) { return nodes_.at(static_cast<size_t>(id)); }
  const Node& node(int id) const { return nodes_.at(static_cast<size_t>(id)); }
  const Fact& fact(Outlet o) const;
  size_t size() const { return nodes_.size(); }

  const std::vector<Outlet>& inputs() const { return inputs_; }
  const std::vector<Outlet>& outputs() const { return outputs_; }
  const std::vector<std::string>& output_names() const { return output_names_; }
  std::string input_name(size_t i) const { return node(inputs_.at(i).node).name; }
  void set_outputs(std::vector<Outlet> outputs, std::vector<std::string> names);
  // Replaces the fact of model input i (e.g. from a -i override).
  void set_input_fact(size_t i, Fact fact);
  void set_inputs(std::vector<Outlet> inputs) { inputs_ = std::move(inputs); }

  // Nodes needed to compute the outputs, each after its inputs. Throws on cycles.
  std::vector<int> eval_order() const;
  // Id of the node with this name, or -1.
  int find_node(const std::string& name) const;
  // "id name (Op)" for messages.
  std::string describe(int id) const;

 private:
  std::deque<Node> nodes_;
  std::vector<Outlet> inputs_;
  std::vector<Outlet> outputs_;
  std::vector<std::string> output_names_;
};

using GraphPtr = std::shared_ptr<const Graph>;

// Replaces the symbolic dims of each model input's fact by the dims of the tensor that will be
// fed to it (same type and rank only: a mismatch is left for State::run to report), so that
// analysis can fold what depends on input shapes (e.g. `If` on a shape test).
void bind_input_shapes(Graph& graph, const std::vector<Tensor>& inputs);

// The facts of the model inputs / outputs, in order (what readers of bundles are told to expect).
std::vector<Fact> input_facts(const Graph& graph);
std::vector<Fact> output_facts(const Graph& graph);

}  // namespace kiln
