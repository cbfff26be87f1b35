// What an ONNX op translator sees of one NodeProto, and the registry of translators.
// A translator reads attributes, creates kiln ops and wires them; most do `ctx.wire(op)`.
#pragma once

#include <onnx/onnx_pb.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/graph.h"

namespace kiln::onnx_io {

class GraphBuilder;

// A translated ONNX subgraph (If branch, Loop/Scan body). Its inputs are the subgraph's own
// declared inputs followed by one Source per value captured from enclosing scopes; those
// captured values are `captured_outlets` in the graph that holds the node.
struct Subgraph {
  std::shared_ptr<Graph> graph;
  size_t num_formal_inputs = 0;
  std::vector<std::string> captured_names;
  std::vector<Outlet> captured_outlets;
};

class NodeContext {
 public:
  NodeContext(const onnx::NodeProto& proto, int64_t opset, GraphBuilder& builder)
      : proto_(proto), opset_(opset), builder_(builder) {}

  const onnx::NodeProto& proto() const { return proto_; }
  const std::string& op_type() const { return proto_.op_type(); }
  const std::string& name() const { return proto_.name(); }
  // Opset version of the node's domain in this model.
  int64_t opset() const { return opset_; }

  size_t num_inputs() const { return static_cast<size_t>(proto_.input_size()); }
  // True when input i is given (not past the end, not the empty name).
  bool has_input(size_t i) const;
  // Outlet of input i (Outlet{} when absent).
  Outlet input(size_t i) const;
  // All inputs, absent ones as Outlet{}.
  std::vector<Outlet> inputs() const;
  size_t num_outputs() const { return static_cast<size_t>(proto_.output_size()); }
  // The fact of an input as known at load time (typed facts come later; may be a placeholder
  // unless the input is a constant or a model input).
  const Fact* input_fact(size_t i) const;
  // The value of input i when it is a constant initializer / Constant node.
  const Tensor* input_constant(size_t i) const;

  bool has_attr(const std::string& name) const;
  int64_t attr_int(const std::string& name, std::optional<int64_t> dflt = std::nullopt) const;
  float attr_float(const std::string& name, std::optional<float> dflt = std::nullopt) const;
  std::string attr_string(const std::string& name,
                          std::optional<std::string> dflt = std::nullopt) const;
  std::vector<int64_t> attr_ints(const std::string& name,
                                 std::optional<std::vector<int64_t>> dflt = std::nullopt) const;
  std::vector<float> attr_floats(const std::string& name,
                                 std::optional<std::vector<float>> dflt = std::nullopt) const;
  std::vector<std::string> attr_strings(
      const std::string& name, std::optional<std::vector<std::string>> dflt = std::nullopt) const;
  Tensor attr_tensor(const std::string& name) const;
  // The outlet of an ONNX value by name (any enclosing scope), and the graph built so far: for
  // translators that look at the graph around the node (Gradient).
  Outlet resolve(const std::string& value_name) const;
  const Graph& graph() const;
  // Translates a graph attribute (If branches, Loop body...) with captures resolved.
  Subgraph attr_graph(const std::string& name) const;

  // Adds one node taking all the ONNX inputs and mapping its outputs 1:1 to the ONNX outputs.
  void wire(OpPtr op);
  // Lower level: add a node (name suffixed to the ONNX node's) and declare the outlets that
  // stand for the ONNX outputs.
  Outlet add_node(const std::string& suffix, OpPtr op, std::vector<Outlet> inputs,
                  size_t num_outputs = 1);
  Outlet add_const(const std::string& suffix, Tensor value);
  void set_output(size_t i, Outlet outlet);

 private:
  const onnx::AttributeProto* find_attr(const std::string& name) const;
  std::string node_name_for() const;
  const onnx::NodeProto& proto_;
  int64_t opset_;
  GraphBuilder& builder_;
};

using Translator = std::function<void(NodeContext&)>;

// ONNX 1.12's opset, which translators registered without a newest version were written for.
inline constexpr int kOnnx112Opset = 17;

class OpRegistry {
 public:
  // Registers the translator of an op for its versions up to `newest_version` (an opset of the
  // domain; default: 17 for ai.onnx, every version for other domains). A model whose opset
  // selects a newer version of the op (spec_ops.h) is refused, naming the version.
  void add(const std::string& op_type, Translator translator, const std::string& domain = "",
           int newest_version = 0);
  // Declares that the registered translator also implements the op's versions up to
  // `newest_version` (translators that read the newer versions' attributes and inputs).
  void implements(const std::string& op_type, int newest_version, const std::string& domain = "");
  const Translator* find(const std::string& domain, const std::string& op_type) const;
  // The newest version of the op kiln implements (an opset number of its domain).
  int newest_version(const std::string& domain, const std::string& op_type) const;
  // Every registered (domain, op type), sorted.
  std::vector<std::pair<std::string, std::string>> list() const;
  // The registry with every translator kiln has.
  static const OpRegistry& instance();

 private:
  struct Entry {
    Translator translator;
    int newest_version;
  };
  std::map<std::pair<std::string, std::string>, Entry> translators_;
};

}  // namespace kiln::onnx_io
