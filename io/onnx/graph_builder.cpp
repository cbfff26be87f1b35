#include "io/onnx/graph_builder.h"

#include <fmt/format.h>

#include <cctype>

#include "base/error.h"
#include "core/map_value.h"
#include "core/run_limits.h"
#include "core/sequence.h"
#include "core/source_ops.h"
#include "io/onnx/spec_ops.h"
#include "io/onnx/tensor_proto.h"

namespace kiln::onnx_io {

namespace {

std::string symbol_name(const std::string& param) {
  std::string out;
  for (char c : param) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "s_" + out;
  return out;
}

std::string node_name(const onnx::NodeProto& node, size_t index) {
  if (!node.name().empty()) return node.name();
  for (const auto& o : node.output())
    if (!o.empty()) return o;
  return fmt::format("{}_{}", node.op_type(), index);
}

}  // namespace

// A tensor type without shape is a scalar at the top level (as before) but an item of unknown
// rank inside a sequence or optional.
Fact fact_from_type(const onnx::TypeProto& type, const std::string& name, bool in_container) {
  if (type.has_sequence_type()) {
    KILN_ENSURE(type.sequence_type().has_elem_type(), "value '{}': sequence without item type",
                name);
    return sequence_fact(fact_from_type(type.sequence_type().elem_type(), name, true));
  }
  if (type.has_optional_type()) {
    KILN_ENSURE(type.optional_type().has_elem_type(), "value '{}': optional without value type",
                name);
    return optional_fact(fact_from_type(type.optional_type().elem_type(), name, true));
  }
  if (type.has_map_type()) {
    const auto& mt = type.map_type();
    auto key_dt = datum_type_from_onnx(mt.key_type());
    KILN_ENSURE(
        key_dt && is_map_key_type(*key_dt),
        "value '{}' is a map with keys of ONNX type {}: kiln supports int64 and string keys", name,
        mt.key_type());
    KILN_ENSURE(mt.has_value_type() && mt.value_type().has_tensor_type(),
                "value '{}' is a map whose values are not tensors: kiln supports maps of f32, f64, "
                "i64 or string values",
                name);
    auto value_dt = datum_type_from_onnx(mt.value_type().tensor_type().elem_type());
    KILN_ENSURE(value_dt && is_map_value_type(*value_dt),
                "value '{}' is a map with values of ONNX type {}: kiln supports f32, f64, i64 and "
                "string values",
                name, mt.value_type().tensor_type().elem_type());
    return map_fact(*key_dt, *value_dt);
  }
  if (type.has_sparse_tensor_type()) fail("value '{}' is a sparse tensor: not supported", name);
  KILN_ENSURE(type.has_tensor_type(), "value '{}' has no tensor type", name);
  const auto& tt = type.tensor_type();
  auto dt = datum_type_from_onnx(tt.elem_type());
  KILN_ENSURE(dt.has_value(), "value '{}' has unsupported element type {}", name, tt.elem_type());
  Fact fact;
  fact.dt = *dt;
  if (tt.has_shape()) {
    check_rank(tt.shape().dim_size(), "value type");
    for (const auto& d : tt.shape().dim()) {
      if (d.has_dim_value()) {
        KILN_ENSURE(d.dim_value() >= 0, "value '{}' has negative dimension {}", name,
                    d.dim_value());
        fact.shape.emplace_back(d.dim_value());
      } else if (d.has_dim_param() && !d.dim_param().empty()) {
        fact.shape.push_back(Dim::symbol(symbol_name(d.dim_param())));
      } else {
        fact.shape.push_back(Dim::fresh());
      }
    }
  } else if (in_container) {
    fact.rank_known = false;
  }
  return fact;
}

Fact fact_from_value_info(const onnx::ValueInfoProto& info) {
  return fact_from_type(info.type(), info.name(), false);
}

GraphBuilder::GraphBuilder(const std::map<std::string, int64_t>& opsets, std::string base_dir,
                           GraphBuilder* parent, MissingOps* missing)
    : graph_(std::make_shared<Graph>()),
      opsets_(opsets),
      base_dir_(std::move(base_dir)),
      parent_(parent),
      missing_(missing) {}

bool GraphBuilder::defines(const std::string& name) const {
  if (names_.count(name)) return true;
  return parent_ && parent_->defines(name);
}

Outlet GraphBuilder::resolve(const std::string& name) {
  auto it = names_.find(name);
  if (it != names_.end()) return it->second;
  if (parent_ && parent_->defines(name)) {
    Outlet outer = parent_->resolve(name);
    const Fact& outer_fact = parent_->graph_->fact(outer);
    Outlet local = graph_->add_source(name, outer_fact);
    captured_names_.push_back(name);
    captured_outer_.push_back(outer);
    names_[name] = local;
    return local;
  }
  fail("value '{}' is used but never defined", name);
}

void GraphBuilder::build(const onnx::GraphProto& proto, bool is_subgraph) {
  for (const auto& init : proto.initializer()) {
    try {
      names_[init.name()] = graph_->add_const(init.name(), tensor_from_proto(init, base_dir_));
    } catch (Error& e) {
      e.with_context(fmt::format("reading initializer '{}'", init.name()));
      throw;
    }
  }
  for (const auto& sparse : proto.sparse_initializer())
    fail("sparse initializer '{}' is not supported", sparse.values().name());
  for (const auto& input : proto.input()) {
    if (names_.count(input.name())) continue;  // an initializer: a constant with a default
    Fact fact;
    if (is_subgraph && input.type().value_case() == onnx::TypeProto::VALUE_NOT_SET) {
      fact = Fact();  // untyped subgraph input: the op supplies facts at analysis
    } else {
      fact = fact_from_value_info(input);
    }
    names_[input.name()] = graph_->add_source(input.name(), fact);
  }
  for (int i = 0; i < proto.node_size(); i++) {
    const auto& node = proto.node(i);
    std::string domain = node.domain() == "ai.onnx" ? "" : node.domain();
    auto opset_it = opsets_.find(domain);
    int64_t opset = opset_it == opsets_.end() ? (domain.empty() ? 1 : 1) : opset_it->second;
    const Translator* translator = OpRegistry::instance().find(domain, node.op_type());
    // A version of the op newer than its translator implements is as unsupported as no
    // translator (the error names the version).
    auto version = spec_version_at(domain, node.op_type(), opset);
    if (translator && version &&
        *version > OpRegistry::instance().newest_version(domain, node.op_type()))
      translator = nullptr;
    if (!translator) {
      (*missing_)[{domain.empty() ? "ai.onnx" : domain, node.op_type(), opset}]++;
      // Keep going so every unsupported op is reported at once.
      for (const auto& o : node.output())
        if (!o.empty()) names_[o] = graph_->add_const(o, Tensor(DatumType::F32, Shape{}));
      continue;
    }
    try {
      for (const auto& in : node.input())
        if (!in.empty()) resolve(in);
      NodeContext ctx(node, opset, *this);
      (*translator)(ctx);
      for (const auto& o : node.output())
        KILN_ENSURE(o.empty() || names_.count(o), "translator left output '{}' unset", o);
    } catch (Error& e) {
      e.with_context(fmt::format("translating node '{}' ({}, opset {})", node_name(node, i),
                                 node.op_type(), opset));
      throw;
    }
  }
  if (!missing_->empty() && !parent_) {
    std::string list;
    int total = 0;
    for (const auto& [key, count] : *missing_) {
      const auto& [domain, op, opset] = key;
      std::string d = domain == "ai.onnx" ? "" : domain;
      int newest = OpRegistry::instance().newest_version(d, op);
      auto version = spec_version_at(d, op, opset);
      std::string why = newest > 0 && version
                            ? fmt::format(": version {} of {}, kiln implements versions up to {}",
                                          *version, op, newest)
                            : "";
      list += fmt::format("\n  {} (domain {}, opset {}{}): {} node{}", op, domain, opset, why,
                          count, count > 1 ? "s" : "");
      total += count;
    }
    fail("model uses {} operator type{} kiln does not support ({} node{}):{}", missing_->size(),
         missing_->size() > 1 ? "s" : "", total, total > 1 ? "s" : "", list);
  }
  std::vector<Outlet> outputs;
  std::vector<std::string> output_names;
  for (const auto& out : proto.output()) {
    outputs.push_back(resolve(out.name()));
    output_names.push_back(out.name());
  }
  graph_->set_outputs(std::move(outputs), std::move(output_names));
}

// --- NodeContext -----------------------------------------------------------------------------

Outlet NodeContext::resolve(const std::string& value_name) const {
  return builder_.resolve(value_name);
}

const Graph& NodeContext::graph() const {
  return *builder_.graph();
}

bool NodeContext::has_input(size_t i) const {
  return i < num_inputs() && !proto_.input(static_cast<int>(i)).empty();
}

Outlet NodeContext::input(size_t i) const {
  if (!has_input(i)) return {};
  return builder_.resolve(proto_.input(static_cast<int>(i)));
}

std::vector<Outlet> NodeContext::inputs() const {
  std::vector<Outlet> out;
  for (size_t i = 0; i < num_inputs(); i++) out.push_back(input(i));
  return out;
}

const Fact* NodeContext::input_fact(size_t i) const {
  if (!has_input(i)) return nullptr;
  Outlet o = input(i);
  const Node& n = builder_.graph()->node(o.node);
  if (dynamic_cast<const ConstOp*>(n.op.get()) || dynamic_cast<const SourceOp*>(n.op.get()))
    return &builder_.graph()->fact(o);
  return nullptr;
}

const Tensor* NodeContext::input_constant(size_t i) const {
  if (!has_input(i)) return nullptr;
  Outlet o = input(i);
  const Node& n = builder_.graph()->node(o.node);
  if (auto* c = dynamic_cast<const ConstOp*>(n.op.get())) return &c->value();
  return nullptr;
}

const onnx::AttributeProto* NodeContext::find_attr(const std::string& name) const {
  for (const auto& a : proto_.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

bool NodeContext::has_attr(const std::string& name) const {
  return find_attr(name) != nullptr;
}

#define KILN_ATTR_GETTER(RET, NAME, CHECK, GET)                                                \
  RET NodeContext::NAME(const std::string& name, std::optional<RET> dflt) const {              \
    const auto* a = find_attr(name);                                                           \
    if (!a) {                                                                                  \
      KILN_ENSURE(dflt.has_value(), "required attribute '{}' is missing", name);               \
      return *dflt;                                                                            \
    }                                                                                          \
    KILN_ENSURE(a->type() == onnx::AttributeProto::CHECK, "attribute '{}' should be {}", name, \
                #CHECK);                                                                       \
    return GET;                                                                                \
  }

KILN_ATTR_GETTER(int64_t, attr_int, INT, a->i())
KILN_ATTR_GETTER(float, attr_float, FLOAT, a->f())
KILN_ATTR_GETTER(std::string, attr_string, STRING, a->s())
KILN_ATTR_GETTER(std::vector<int64_t>, attr_ints, INTS,
                 std::vector<int64_t>(a->ints().begin(), a->ints().end()))
KILN_ATTR_GETTER(std::vector<float>, attr_floats, FLOATS,
                 std::vector<float>(a->floats().begin(), a->floats().end()))
KILN_ATTR_GETTER(std::vector<std::string>, attr_strings, STRINGS,
                 std::vector<std::string>(a->strings().begin(), a->strings().end()))
#undef KILN_ATTR_GETTER

Tensor NodeContext::attr_tensor(const std::string& name) const {
  const auto* a = find_attr(name);
  KILN_ENSURE(a, "required attribute '{}' is missing", name);
  KILN_ENSURE(a->type() == onnx::AttributeProto::TENSOR, "attribute '{}' should be a tensor", name);
  return tensor_from_proto(a->t(), builder_.base_dir());
}

Subgraph NodeContext::attr_graph(const std::string& name) const {
  const auto* a = find_attr(name);
  KILN_ENSURE(a, "required graph attribute '{}' is missing", name);
  KILN_ENSURE(a->type() == onnx::AttributeProto::GRAPH, "attribute '{}' should be a graph", name);
  GraphBuilder sub(builder_.opsets(), builder_.base_dir(), &builder_, builder_.missing());
  try {
    sub.build(a->g(), true);
  } catch (Error& e) {
    e.with_context(fmt::format("in subgraph '{}'", name));
    throw;
  }
  Subgraph out;
  out.graph = sub.graph();
  out.num_formal_inputs = sub.graph()->inputs().size() - sub.captured_names().size();
  out.captured_names = sub.captured_names();
  out.captured_outlets = sub.captured_outer();
  return out;
}

void NodeContext::wire(OpPtr op) {
  int id =
      builder_.mutable_graph().add_node(node_name_for(), std::move(op), inputs(), num_outputs());
  for (size_t i = 0; i < num_outputs(); i++) set_output(i, {id, static_cast<int>(i)});
}

Outlet NodeContext::add_node(const std::string& suffix, OpPtr op, std::vector<Outlet> inputs,
                             size_t num_outputs) {
  std::string n = suffix.empty() ? node_name_for() : node_name_for() + "." + suffix;
  int id = builder_.mutable_graph().add_node(n, std::move(op), std::move(inputs), num_outputs);
  return {id, 0};
}

Outlet NodeContext::add_const(const std::string& suffix, Tensor value) {
  return builder_.mutable_graph().add_const(node_name_for() + "." + suffix, std::move(value));
}

void NodeContext::set_output(size_t i, Outlet outlet) {
  KILN_ENSURE(i < num_outputs(), "node has {} outputs, cannot set output {}", num_outputs(), i);
  const std::string& name = proto_.output(static_cast<int>(i));
  if (!name.empty()) builder_.bind(name, outlet);
}

std::string NodeContext::node_name_for() const {
  if (!proto_.name().empty()) return proto_.name();
  for (const auto& o : proto_.output())
    if (!o.empty()) return o;
  return proto_.op_type();
}

}  // namespace kiln::onnx_io
