// What an NNEF op serializer sees while the writer walks the graph: the node, tensor
// identifiers for its inputs (emitted on demand, so shape computations NNEF does not need are
// never written), and ways to emit assignments and constants.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/graph.h"
#include "io/nnef/archive.h"

namespace kiln::nnef {

class WriterContext {
 public:
  // What the graph and the fragments of its subgraphs (If branches) share: identifiers are
  // unique across all of them, tensors and extensions are collected once.
  struct Shared {
    std::set<std::string> used;
    FileMap files;
    std::set<std::string> extensions;
    std::set<std::string> extension_ops;
    std::set<std::string> symbols;
    std::map<std::string, std::vector<std::string>> unsupported;
    std::vector<std::string> fragments;  // fragment definitions, in writing order
    bool strict = false;                 // prefer exact standard expressions (strict_lowering.h)
  };

  explicit WriterContext(const Graph& graph) : graph_(graph), shared_(std::make_shared<Shared>()) {}
  WriterContext(const Graph& graph, std::shared_ptr<Shared> shared)
      : graph_(graph), shared_(std::move(shared)) {}

  const Graph& graph() const { return graph_; }
  const Fact& fact(Outlet o) const { return graph_.fact(o); }
  // The NNEF expression for a tensor: an identifier (emitting its producer first), or an inline
  // literal for f32 scalar constants.
  std::string tensor(Outlet o);
  // Same, as an identifier only (constants become variables).
  std::string identifier(Outlet o);
  // A tensor padded with leading singleton dims to `rank` (NNEF broadcasting pads trailing dims,
  // so operands of binary ops are made the same rank first).
  std::string tensor_of_rank(Outlet o, size_t rank);
  // A variable holding this tensor; returns its identifier.
  std::string variable(const Tensor& t, const std::string& base);
  // Emits "lhs = rhs;" for output slot `slot` of `node` and records the identifier.
  void assign(const Node& node, size_t slot, const std::string& rhs);
  // Emits "[a, b, ...] = rhs;" for all outputs of `node`.
  void assign_all(const Node& node, const std::string& rhs);
  // Emits an intermediate "tmp = rhs;" and returns tmp.
  std::string temp(const std::string& base, const std::string& rhs);
  // Records that this node's op needs the named extension fragment.
  void use_extension(const std::string& registry, const std::string& op);
  // The known integer values of a constant input, or throws naming the node.
  std::vector<int64_t> const_ints(const Node& node, size_t input) const;
  // Dims as an NNEF array ("[1, S, 40]"), recording the symbols used.
  std::string dims(const std::vector<Dim>& dims);
  // Records that a node's op cannot be written (all such ops are reported at the end).
  void unsupported(const Node& node, const std::string& why);
  // Writes `body` (inputs fed by `input_facts`, analysed with them) as a fragment taking
  // `num_params` tensors, body input j being parameter input_map[j]; returns its name.
  std::string write_fragment(const Graph& body, const std::vector<size_t>& input_map,
                             const std::vector<Fact>& param_facts, const std::string& base);

  std::string fresh(const std::string& base);
  // A constant tensor still written as its producing op (DequantizeLinear of integers).
  bool written_as_op(Outlet o) const;
  // The identifier a tensor should get when it is written (graph outputs keep their names).
  void prefer_name(Outlet o, const std::string& name) { preferred_[o] = name; }
  // The name output `o` will be written under (before it is): its preferred name or its node's.
  std::string planned_name(Outlet o) const {
    auto it = preferred_.find(o);
    return it != preferred_.end() ? it->second : graph_.node(o.node).name;
  }
  std::vector<std::string>& lines() { return lines_; }
  Shared& shared() { return *shared_; }
  std::map<Outlet, std::string>& names() { return names_; }

 private:
  void emit_node(int id);
  const Graph& graph_;
  std::shared_ptr<Shared> shared_;
  std::map<Outlet, std::string> names_;
  std::map<Outlet, std::string> preferred_;
  std::map<std::pair<Outlet, size_t>, std::string> ranked_;  // tensor_of_rank results
  std::set<int> in_progress_;
  std::vector<std::string> lines_;
};

// Writes one node; returns false when this serializer does not handle the node's op.
using Serializer = std::function<bool(WriterContext&, const Node&)>;
// Serializers by kiln op name ("Conv", "Add", ...).
const std::map<std::string, Serializer>& serializers();

// NNEF text helpers.
std::string nnef_identifier(const std::string& name);
std::string nnef_real(double v);
std::string nnef_ints(const std::vector<int64_t>& v);
std::string nnef_string(const std::string& s);

}  // namespace kiln::nnef
