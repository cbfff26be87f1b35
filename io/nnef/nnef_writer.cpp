#include "io/nnef/nnef_writer.h"
#include "io/nnef/stream_spec_file.h"

#include <cctype>
#include <cmath>

#include "base/error.h"
#include "io/nnef/dat_file.h"
#include "io/nnef/serializer.h"
#include "io/nnef/strict_lowering.h"

namespace kiln::nnef {

namespace {

const std::set<std::string>& reserved_words() {
  static const std::set<std::string> words = {
      "version", "extension", "fragment",  "graph",    "tensor",  "integer", "scalar",
      "logical", "string",    "true",      "false",    "for",     "in",      "yield",
      "if",      "else",      "length_of", "shape_of", "range_of"};
  return words;
}

std::string nnef_type_name(DatumType dt) {
  if (is_float(dt) || is_narrow_float(dt)) return "scalar";
  if (dt == DatumType::Bool) return "logical";
  return "integer";
}

}  // namespace

bool WriterContext::written_as_op(Outlet o) const {
  // DequantizeLinear of an integer constant (quantized weights, i32 biases): its value is known,
  // but the archive keeps the integers and the op, so that reading it back gives the int8 model.
  const Node& n = graph_.node(o.node);
  if (n.op->name() != "DequantizeLinear" || n.inputs.empty() || !n.inputs[0].present())
    return false;
  const Fact& x = fact(n.inputs[0]);
  return x.value != nullptr && is_integer(x.dt);
}

std::string nnef_identifier(const std::string& name) {
  std::string out;
  for (char c : name) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "t_" + out;
  if (reserved_words().count(out)) out += "_";
  return out;
}

std::string nnef_real(double v) {
  KILN_ENSURE(std::isfinite(v), "NNEF has no literal for {}", v);
  std::string s = static_cast<double>(static_cast<float>(v)) == v
                      ? fmt::format("{}", static_cast<float>(v))
                      : fmt::format("{}", v);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string nnef_ints(const std::vector<int64_t>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); i++) out += (i ? ", " : "") + std::to_string(v[i]);
  return out + "]";
}

std::string nnef_string(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

std::string WriterContext::fresh(const std::string& base) {
  std::string id = nnef_identifier(base);
  std::string name = id;
  for (int i = 1; shared_->used.count(name); i++) name = fmt::format("{}_{}", id, i);
  shared_->used.insert(name);
  return name;
}

std::string WriterContext::dims(const std::vector<Dim>& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); i++) {
    for (const auto& s : dims[i].symbols()) shared_->symbols.insert(s);
    out += (i ? ", " : "") + dims[i].to_string();
  }
  return out + "]";
}

void WriterContext::unsupported(const Node& node, const std::string& why) {
  shared_->unsupported[node.op->name() + (why.empty() ? "" : " (" + why + ")")].push_back(
      node.name);
}

std::string WriterContext::variable(const Tensor& t, const std::string& base) {
  std::string id = fresh(base);
  shared_->files[id + ".dat"] = write_dat(t);
  std::vector<int64_t> shape(t.shape().begin(), t.shape().end());
  lines_.push_back(fmt::format("{} = variable<{}>(label = {}, shape = {});", id,
                               nnef_type_name(t.dtype()), nnef_string(id), nnef_ints(shape)));
  return id;
}

std::string WriterContext::identifier(Outlet o) {
  auto it = names_.find(o);
  if (it != names_.end()) return it->second;
  const Fact& f = fact(o);
  if (f.value && !written_as_op(o)) {
    const Node& n = graph_.node(o.node);
    std::string id = variable(*f.value, o.slot ? fmt::format("{}_o{}", n.name, o.slot) : n.name);
    names_[o] = id;
    return id;
  }
  emit_node(o.node);
  it = names_.find(o);
  KILN_ENSURE(it != names_.end(),
              "NNEF has no way to write output {} of node {}: only its first output is written",
              o.slot, graph_.describe(o.node));
  return it->second;
}

std::string WriterContext::tensor(Outlet o) {
  const Fact& f = fact(o);
  if (!names_.count(o) && f.value && f.rank() == 0 && f.dt == DatumType::F32 && !written_as_op(o)) {
    double v = f.value->value_as_double(0);
    if (std::isfinite(v)) return nnef_real(v);
  }
  return identifier(o);
}

std::string WriterContext::tensor_of_rank(Outlet o, size_t rank) {
  const Fact& f = fact(o);
  if (f.rank() >= rank || f.rank() == 0) return tensor(o);
  // One padded version per tensor and rank, however many ops use it.
  auto memo = ranked_.find({o, rank});
  if (memo != ranked_.end()) return memo->second;
  size_t missing = rank - f.rank();
  std::string id;
  if (f.value && !written_as_op(o)) {
    Shape shape(missing, 1);
    shape.insert(shape.end(), f.value->shape().begin(), f.value->shape().end());
    id = variable(f.value->reshaped(shape), graph_.node(o.node).name);
  } else {
    std::vector<int64_t> axes;
    for (size_t i = 0; i < missing; i++) axes.push_back(int64_t(i));
    id = temp(graph_.node(o.node).name + "_expanded",
              fmt::format("unsqueeze({}, axes = {})", identifier(o), nnef_ints(axes)));
  }
  ranked_[{o, rank}] = id;
  return id;
}

void WriterContext::assign(const Node& node, size_t slot, const std::string& rhs) {
  Outlet o{node.id, int(slot)};
  auto pref = preferred_.find(o);
  std::string id = fresh(pref != preferred_.end() ? pref->second
                         : slot                   ? fmt::format("{}_o{}", node.name, slot)
                                                  : node.name);
  lines_.push_back(fmt::format("{} = {};", id, rhs));
  names_[o] = id;
}

void WriterContext::assign_all(const Node& node, const std::string& rhs) {
  std::string lhs = "[";
  for (size_t i = 0; i < node.outputs.size(); i++) {
    auto pref = preferred_.find({node.id, int(i)});
    std::string id = fresh(pref != preferred_.end() ? pref->second
                           : i                      ? fmt::format("{}_o{}", node.name, i)
                                                    : node.name);
    names_[{node.id, int(i)}] = id;
    lhs += (i ? ", " : "") + id;
  }
  lines_.push_back(fmt::format("{}] = {};", lhs, rhs));
}

std::string WriterContext::temp(const std::string& base, const std::string& rhs) {
  std::string id = fresh(base);
  lines_.push_back(fmt::format("{} = {};", id, rhs));
  return id;
}

void WriterContext::use_extension(const std::string& registry, const std::string& op) {
  shared_->extensions.insert(registry);
  shared_->extension_ops.insert(op);
}

std::vector<int64_t> WriterContext::const_ints(const Node& node, size_t input) const {
  KILN_ENSURE(input < node.inputs.size() && node.inputs[input].present(),
              "node {}: input {} is absent", node.name, input);
  auto values = fact(node.inputs[input]).known_i64_values();
  KILN_ENSURE(values.has_value(), "node {} ({}): input {} must be a known constant for NNEF",
              node.name, node.op->name(), input);
  return *values;
}

void WriterContext::emit_node(int id) {
  const Node& node = graph_.node(id);
  KILN_ENSURE(!in_progress_.count(id), "NNEF writer: cycle through node {}", graph_.describe(id));
  in_progress_.insert(id);
  auto it = serializers().find(node.op->name());
  auto lowering = strict_lowerings().find(node.op->name());
  bool has_lowering = lowering != strict_lowerings().end();
  bool done = false;
  try {
    // Strict: the exact standard expression first; otherwise the op's serializer, then a
    // lowering that stands in for a missing serializer.
    if (has_lowering && shared_->strict) done = lowering->second.write(*this, node);
    if (!done && it != serializers().end()) done = it->second(*this, node);
    if (!done && has_lowering && lowering->second.always && !shared_->strict)
      done = lowering->second.write(*this, node);
  } catch (Error& e) {
    e.with_context("writing node " + graph_.describe(id));
    throw;
  }
  if (!done) {
    // Sequences, optionals and maps (ZipMap, DictVectorizer, CastMap, the sequence ops) have no
    // NNEF form: say so rather than "no serializer".
    std::string why;
    for (const Fact& f : node.outputs)
      if (is_container(f.dt))
        why = "makes a " + f.to_string() + " value, which NNEF cannot express";
    for (const auto& in : node.inputs)
      if (in.present() && why.empty() && is_container(graph_.fact(in).dt))
        why = "reads a " + graph_.fact(in).to_string() + " value, which NNEF cannot express";
    unsupported(node, why);
    // Keep walking so every op NNEF cannot express is reported at once.
    for (size_t i = 0; i < node.outputs.size(); i++)
      if (!names_.count({id, int(i)})) names_[{id, int(i)}] = fresh(node.name);
    for (const auto& in : node.inputs)
      if (in.present()) identifier(in);
  }
  in_progress_.erase(id);
}

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); i++) out += (i ? ", " : "") + v[i];
  return out;
}

// Writes the graph's outputs (and whatever they need) and returns their identifiers: each output
// gets its graph name, through a copy when its tensor already has another name.
std::vector<std::string> write_outputs(WriterContext& ctx, const Graph& graph,
                                       const std::set<std::string>& taken) {
  for (size_t i = graph.outputs().size(); i-- > 0;)
    ctx.prefer_name(graph.outputs()[i], graph.output_names()[i]);
  std::vector<std::string> ids;
  std::set<std::string> seen = taken;
  for (size_t i = 0; i < graph.outputs().size(); i++) {
    Outlet o = graph.outputs()[i];
    std::string wanted = nnef_identifier(graph.output_names()[i]);
    std::string id = ctx.identifier(o);
    if (id != wanted || seen.count(id)) {
      std::string copy = ctx.fresh(wanted);
      ctx.lines().push_back(fmt::format("{} = copy({});", copy, id));
      id = copy;
    }
    seen.insert(id);
    ids.push_back(id);
  }
  return ids;
}

std::string tensor_type(DatumType dt) {
  return "tensor<" + nnef_type_name(dt) + ">";
}

}  // namespace

std::string WriterContext::write_fragment(const Graph& body, const std::vector<size_t>& input_map,
                                          const std::vector<Fact>& param_facts,
                                          const std::string& base) {
  Graph g = body;
  for (size_t j = 0; j < input_map.size(); j++) g.set_input_fact(j, param_facts.at(input_map[j]));
  g.analyse();
  std::string name = fresh(base);
  WriterContext sub(g, shared_);
  std::vector<std::string> params(param_facts.size());
  for (size_t j = 0; j < input_map.size(); j++) {
    std::string& p = params[input_map[j]];
    if (p.empty()) {
      p = sub.fresh(g.input_name(j));
    } else {
      sub.lines().push_back(fmt::format("{} = copy({});", sub.fresh(g.input_name(j)), p));
    }
    sub.names()[g.inputs()[j]] = p;
  }
  for (size_t i = 0; i < params.size(); i++)
    if (params[i].empty()) params[i] = sub.fresh(fmt::format("{}_unused_{}", name, i));
  std::set<std::string> taken(params.begin(), params.end());
  std::vector<std::string> results = write_outputs(sub, g, taken);
  std::string text = "fragment " + name + "(";
  for (size_t i = 0; i < params.size(); i++)
    text += fmt::format("{}{}: {}", i ? ", " : " ", params[i], tensor_type(param_facts[i].dt));
  text += " ) -> (";
  for (size_t i = 0; i < results.size(); i++)
    text +=
        fmt::format("{}{}: {}", i ? ", " : " ", results[i], tensor_type(g.fact(g.outputs()[i]).dt));
  text += " )\n{\n";
  for (const auto& line : sub.lines()) text += "    " + line + "\n";
  text += "}\n";
  shared_->fragments.push_back(text);
  return name;
}

WrittenModel write_nnef(const Graph& graph, const WriteOptions& options) {
  WriterContext ctx(graph);
  ctx.shared().strict = options.strict;
  std::vector<std::string> input_ids;
  for (size_t i = 0; i < graph.inputs().size(); i++) {
    Outlet o = graph.inputs()[i];
    const Fact& f = graph.fact(o);
    KILN_ENSURE(!is_container(f.dt),
                "input '{}' is a {} value: NNEF has no sequences, optionals or maps",
                graph.input_name(i), f.to_string());
    KILN_ENSURE(
        is_numeric(f.dt) || is_narrow(f.dt) || f.dt == DatumType::Bool || f.dt == DatumType::String,
        "model input '{}' is of type {}, which NNEF cannot express", graph.input_name(i),
        name_of(f.dt));
    std::string id = ctx.fresh(graph.input_name(i));
    std::string rhs;
    if (f.dt == DatumType::F32 || f.dt == DatumType::I64 || f.dt == DatumType::Bool) {
      rhs = fmt::format("external<{}>(shape = {})", nnef_type_name(f.dt), ctx.dims(f.shape));
    } else {
      ctx.use_extension("tract_registry tract_core", "Source (" + std::string(name_of(f.dt)) + ")");
      rhs = fmt::format("tract_core_external(shape = {}, datum_type = {})", ctx.dims(f.shape),
                        nnef_string(std::string(name_of(f.dt))));
    }
    ctx.lines().push_back(fmt::format("{} = {};", id, rhs));
    ctx.names()[o] = id;
    input_ids.push_back(id);
  }
  std::vector<std::string> output_ids = write_outputs(ctx, graph, {});
  auto& shared = ctx.shared();
  if (!shared.unsupported.empty()) {
    std::string list;
    for (const auto& [op, nodes] : shared.unsupported)
      list += fmt::format("\n  {}: {} node(s), e.g. '{}'", op, nodes.size(), nodes[0]);
    fail("the graph has ops kiln cannot write as NNEF:{}", list);
  }
  WrittenModel model;
  model.extension_ops.assign(shared.extension_ops.begin(), shared.extension_ops.end());
  if (options.strict && !model.extension_ops.empty()) {
    std::string list;
    for (const auto& op : model.extension_ops) list += "\n  " + op;
    fail(
        "--nnef-strict: the graph needs NNEF extensions for these ops:{}\n(they have no exact "
        "standard NNEF form here: docs/nnef.md says why for each)",
        list);
  }
  if (options.strict && !shared.symbols.empty()) {
    std::string list;
    for (const auto& s : shared.symbols) list += (list.empty() ? "" : ", ") + s;
    fail(
        "--nnef-strict: symbolic dims ({}) need the tract_symbol extension; give concrete input "
        "shapes with -i",
        list);
  }
  std::string text = "version 1.0;\n";
  if (!shared.fragments.empty()) model.extensions.push_back("KHR_enable_fragment_definitions");
  for (const auto& ext : shared.extensions) model.extensions.push_back(ext);
  for (const auto& s : shared.symbols) model.extensions.push_back("tract_symbol " + s);
  if (!model.extensions.empty()) text += "\n";
  for (const auto& ext : model.extensions) text += "extension " + ext + ";\n";
  for (const auto& f : shared.fragments) text += "\n" + f;
  text += fmt::format("\ngraph network( {} ) -> ( {} )\n{{\n", join(input_ids), join(output_ids));
  for (const auto& line : ctx.lines()) text += "    " + line + "\n";
  text += "}\n";
  model.files = std::move(shared.files);
  model.files["graph.nnef"] = text;
  if (options.stream) {
    KILN_ENSURE(!options.strict,
                "--nnef-strict: a pulsed model needs the tract_pulse and kiln_pulse extensions");
    KILN_ENSURE(options.stream->inputs.size() + (options.stream->length_input >= 0 ? 1 : 0) ==
                        graph.inputs().size() &&
                    options.stream->outputs.size() == graph.outputs().size(),
                "the stream description does not match the graph's inputs and outputs");
    model.files[kStreamSpecFile] = stream_spec_to_json(*options.stream);
  }
  return model;
}

void save_nnef(const Graph& graph, const std::string& path, const WriteOptions& options) {
  write_container(path, write_nnef(graph, options).files);
}

}  // namespace kiln::nnef
