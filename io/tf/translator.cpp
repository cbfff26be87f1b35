#include "io/tf/translator.h"

#include <fmt/format.h>

#include "base/error.h"
#include "io/tf/graph_builder.h"
#include "io/tf/tf_tensor.h"

namespace kiln::tf_io {

NodeContext::NodeContext(const tfproto::NodeDef& node, GraphBuilder& builder, Scope& scope)
    : node_(node), builder_(builder), scope_(scope) {
  for (const auto& in : node_.input())
    if (in.empty() || in[0] != '^') inputs_.push_back(&in);
}

const std::string& NodeContext::input_ref(size_t i) const {
  KILN_ENSURE(i < inputs_.size(), "{}: expects input {}, the node has {} inputs", op_type(), i,
              inputs_.size());
  return *inputs_[i];
}

Outlet NodeContext::input_or_dead(size_t i) {
  return builder_.resolve(scope_, input_ref(i));
}

Outlet NodeContext::input(size_t i) {
  Outlet o = input_or_dead(i);
  if (o == kDeadOutlet) throw DeadInput{};
  return o;
}

std::vector<Outlet> NodeContext::inputs() {
  std::vector<Outlet> out;
  for (size_t i = 0; i < inputs_.size(); i++) out.push_back(input(i));
  return out;
}

const Fact* NodeContext::fact(Outlet o) {
  return builder_.fact_of(*scope_.graph, o);
}

const Fact* NodeContext::input_fact(size_t i) {
  return fact(input(i));
}

std::optional<Tensor> NodeContext::try_const_input(size_t i) {
  const Fact* f = input_fact(i);
  if (!f || !f->value) return std::nullopt;
  return *f->value;
}

Tensor NodeContext::const_input(size_t i, const std::string& what) {
  auto t = try_const_input(i);
  KILN_ENSURE(t.has_value(), "{}: {} (input {}) must be known at load time", op_type(), what, i);
  return *t;
}

std::pair<const tfproto::NodeDef*, int> NodeContext::input_source(size_t i) const {
  auto [name, port] = GraphBuilder::parse_ref(input_ref(i));
  return {builder_.find_node(name), port};
}

const tfproto::AttrValue* NodeContext::attr(const std::string& name) const {
  auto it = node_.attr().find(name);
  return it == node_.attr().end() ? nullptr : &it->second;
}

bool NodeContext::has_attr(const std::string& name) const {
  return attr(name) != nullptr;
}

const tfproto::AttrValue& NodeContext::required_attr(const std::string& name,
                                                     const char* kind) const {
  const auto* a = attr(name);
  KILN_ENSURE(a, "{}: missing {} attribute '{}'", op_type(), kind, name);
  return *a;
}

int64_t NodeContext::attr_int(const std::string& name, std::optional<int64_t> dflt) const {
  const auto* a = attr(name);
  if (!a && dflt) return *dflt;
  const auto& v = required_attr(name, "int");
  KILN_ENSURE(v.value_case() == tfproto::AttrValue::kI, "{}: attribute '{}' is not an int",
              op_type(), name);
  return v.i();
}

float NodeContext::attr_float(const std::string& name, std::optional<float> dflt) const {
  const auto* a = attr(name);
  if (!a && dflt) return *dflt;
  const auto& v = required_attr(name, "float");
  KILN_ENSURE(v.value_case() == tfproto::AttrValue::kF, "{}: attribute '{}' is not a float",
              op_type(), name);
  return v.f();
}

bool NodeContext::attr_bool(const std::string& name, std::optional<bool> dflt) const {
  const auto* a = attr(name);
  if (!a && dflt) return *dflt;
  const auto& v = required_attr(name, "bool");
  KILN_ENSURE(v.value_case() == tfproto::AttrValue::kB, "{}: attribute '{}' is not a bool",
              op_type(), name);
  return v.b();
}

std::string NodeContext::attr_string(const std::string& name,
                                     std::optional<std::string> dflt) const {
  const auto* a = attr(name);
  if (!a && dflt) return *dflt;
  const auto& v = required_attr(name, "string");
  KILN_ENSURE(v.value_case() == tfproto::AttrValue::kS, "{}: attribute '{}' is not a string",
              op_type(), name);
  return v.s();
}

DatumType NodeContext::attr_type(const std::string& name, std::optional<DatumType> dflt) const {
  const auto* a = attr(name);
  if (!a && dflt) return *dflt;
  const auto& v = required_attr(name, "type");
  KILN_ENSURE(v.value_case() == tfproto::AttrValue::kType, "{}: attribute '{}' is not a type",
              op_type(), name);
  return datum_type_from_tf(v.type());
}

std::vector<int64_t> NodeContext::attr_ints(const std::string& name,
                                            std::optional<std::vector<int64_t>> dflt) const {
  const auto* a = attr(name);
  if (!a && dflt) return *dflt;
  const auto& v = required_attr(name, "list(int)");
  KILN_ENSURE(v.value_case() == tfproto::AttrValue::kList, "{}: attribute '{}' is not a list",
              op_type(), name);
  return {v.list().i().begin(), v.list().i().end()};
}

Outlet NodeContext::add(const std::string& suffix, OpPtr op, std::vector<Outlet> inputs) {
  return {add_multi(suffix, std::move(op), std::move(inputs), 1), 0};
}

int NodeContext::add_multi(const std::string& suffix, OpPtr op, std::vector<Outlet> inputs,
                           size_t num_outputs) {
  std::string name = suffix.empty() ? node_.name() : node_.name() + "/" + suffix;
  return scope_.graph->add_node(name, std::move(op), std::move(inputs), num_outputs);
}

Outlet NodeContext::add_const(const std::string& suffix, Tensor value) {
  return scope_.graph->add_const(suffix.empty() ? node_.name() : node_.name() + "/" + suffix,
                                 std::move(value));
}

void NodeContext::set_output(size_t i, Outlet outlet) {
  auto& outs = scope_.done[node_.name()];
  if (outs.size() <= i) outs.resize(i + 1);
  outs[i] = outlet;
}

void NodeContext::wire(OpPtr op) {
  set_output(0, add("", std::move(op), inputs()));
}

void OpRegistry::add(const std::string& op_type, Translator translator) {
  translators_[op_type] = std::move(translator);
}

const Translator* OpRegistry::find(const std::string& op_type) const {
  auto it = translators_.find(op_type);
  return it == translators_.end() ? nullptr : &it->second;
}

std::vector<std::string> OpRegistry::list() const {
  std::vector<std::string> out;
  for (const auto& [name, _] : translators_) out.push_back(name);
  return out;
}

const OpRegistry& OpRegistry::instance() {
  static const OpRegistry registry = [] {
    OpRegistry r;
    register_tf_math_ops(r);
    register_tf_nn_ops(r);
    register_tf_array_ops(r);
    register_tf_tensor_array_ops(r);
    register_tf_audio_ops(r);
    register_tf_image_ops(r);
    register_tf_cond_ops(r);
    register_tf_space_ops(r);
    return r;
  }();
  return registry;
}

}  // namespace kiln::tf_io
