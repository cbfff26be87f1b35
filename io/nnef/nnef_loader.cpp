#include "io/nnef/nnef_loader.h"
#include "io/nnef/graph_quant.h"

#include <spdlog/spdlog.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "base/error.h"
#include "io/nnef/builder.h"
#include "io/nnef/parser.h"
#include "io/nnef/stream_spec_file.h"

namespace kiln::nnef {

namespace {

using Env = std::map<std::string, Value>;

// Evaluates graph and fragment bodies, building kiln nodes for tensor operations.
class Interpreter {
 public:
  Interpreter(const Document& doc, Builder& b) : doc_(doc), b_(b) {
    b_.fragment_graph = [this](const std::string& name, const std::vector<Fact>& inputs) {
      return fragment_graph(name, inputs);
    };
    for (const auto& f : stdlib_fragments()) fragments_[f.name] = &f;
    for (const auto& f : doc.fragments) {
      // A declaration of an op kiln already knows (tract files repeat some) keeps kiln's.
      if (!f.body && fragments_.count(f.name)) continue;
      fragments_[f.name] = &f;
    }
  }

  void run_graph(const GraphDef& g) {
    Env env;
    for (const auto& a : g.body) {
      std::string hint = first_identifier(*a.lhs);
      b_.set_name_hint(hint);
      size_t before = b_.graph().size();
      try {
        Value v = eval(*a.rhs, env, 0);
        assign(*a.lhs, v, env);
        name_result(*a.lhs, v, before);
        quantize_result(*a.lhs, *a.rhs, env);
      } catch (Error& e) {
        e.with_context(fmt::format("graph.nnef:{}: '{}'", a.line, hint));
        throw;
      }
    }
    std::vector<Outlet> inputs;
    for (const auto& name : g.inputs) {
      auto it = env.find(name);
      KILN_ENSURE(it != env.end() && it->second.kind == Value::Kind::Tensor,
                  "graph input '{}' is never defined", name);
      const Node& n = b_.graph().node(it->second.outlet.node);
      KILN_ENSURE(n.op->name() == "Source", "graph input '{}' must be defined by external(...)",
                  name);
      inputs.push_back(it->second.outlet);
    }
    KILN_ENSURE(inputs.size() == b_.graph().inputs().size(),
                "the graph declares {} inputs but has {} external(...) tensors", inputs.size(),
                b_.graph().inputs().size());
    b_.graph().set_inputs(inputs);
    std::vector<Outlet> outputs;
    for (const auto& name : g.outputs) {
      auto it = env.find(name);
      KILN_ENSURE(it != env.end(), "graph output '{}' is never defined", name);
      KILN_ENSURE(it->second.kind == Value::Kind::Tensor, "graph output '{}' is {}, not a tensor",
                  name, it->second.describe());
      outputs.push_back(it->second.outlet);
    }
    b_.graph().set_outputs(outputs, g.outputs);
    for (const auto& [name, q] : b_.quantization)
      KILN_ENSURE(env.count(name), "graph.quant names tensor '{}', which graph.nnef never defines",
                  name);
  }

 private:
  static std::string first_identifier(const Expr& e) {
    if (e.kind == Expr::Kind::Identifier) return e.text;
    for (const auto& item : e.items)
      if (item) return first_identifier(*item);
    return "node";
  }

  // A tensor with a graph.quant entry (other than a variable, whose primitive reads it) lies on
  // that grid: quantized and dequantized right where it is computed.
  void quantize_result(const Expr& lhs, const Expr& rhs, Env& env) {
    if (lhs.kind != Expr::Kind::Identifier) return;
    auto q = b_.quantization.find(lhs.text);
    if (q == b_.quantization.end()) return;
    if (rhs.kind == Expr::Kind::Invocation && rhs.text == "variable") return;
    Value& v = env[lhs.text];
    if (v.kind != Value::Kind::Tensor) return;
    b_.set_name_hint(lhs.text + "_quantized");
    v.outlet = fake_quantize(b_, v.outlet, q->second, lhs.text);
  }

  // Gives the node computing a tensor assigned to `x` the name `x`.
  void name_result(const Expr& lhs, const Value& v, size_t before) {
    if (lhs.kind == Expr::Kind::Identifier && v.kind == Value::Kind::Tensor) {
      Graph& g = b_.graph();
      int id = v.outlet.node;
      if (size_t(id) < before || g.node(id).name == lhs.text) return;
      int other = g.find_node(lhs.text);
      if (other >= 0 && size_t(other) >= before) std::swap(g.node(other).name, g.node(id).name);
    }
    if ((lhs.kind == Expr::Kind::Array || lhs.kind == Expr::Kind::Tuple) &&
        v.items.size() == lhs.items.size())
      for (size_t i = 0; i < lhs.items.size(); i++) name_result(*lhs.items[i], v.items[i], before);
  }

  void assign(const Expr& lhs, const Value& v, Env& env) {
    if (lhs.kind == Expr::Kind::Identifier) {
      env[lhs.text] = v;
      return;
    }
    KILN_ENSURE(v.kind == Value::Kind::Array || v.kind == Value::Kind::Tuple,
                "line {}: cannot unpack {} into {} names", lhs.line, v.describe(),
                lhs.items.size());
    KILN_ENSURE(v.items.size() == lhs.items.size(),
                "line {}: cannot unpack {} values into {} names", lhs.line, v.items.size(),
                lhs.items.size());
    for (size_t i = 0; i < lhs.items.size(); i++) assign(*lhs.items[i], v.items[i], env);
  }

  Value eval(const Expr& e, Env& env, int depth) {
    switch (e.kind) {
      case Expr::Kind::Integer:
        return Value::of_int(e.integer);
      case Expr::Kind::Real:
        return Value::of_real(e.real);
      case Expr::Kind::String:
        return Value::of_string(e.text);
      case Expr::Kind::Bool:
        return Value::of_bool(e.boolean);
      case Expr::Kind::Identifier: {
        auto it = env.find(e.text);
        if (it != env.end()) return it->second;
        if (b_.symbols.count(e.text)) return Value::of_int(Dim::symbol(e.text));
        fail("line {}:{}: undefined identifier '{}'", e.line, e.column, e.text);
      }
      case Expr::Kind::Array:
      case Expr::Kind::Tuple: {
        Value v;
        v.kind = e.kind == Expr::Kind::Array ? Value::Kind::Array : Value::Kind::Tuple;
        for (const auto& item : e.items) v.items.push_back(eval(*item, env, depth));
        return v;
      }
      case Expr::Kind::Unary:
        return unary(e, eval(*e.items[0], env, depth));
      case Expr::Kind::Binary:
        return binary(e, eval(*e.items[0], env, depth), eval(*e.items[1], env, depth));
      case Expr::Kind::IfElse: {
        Value c = eval(*e.items[0], env, depth);
        KILN_ENSURE(c.kind == Value::Kind::Bool, "line {}: 'if' needs a logical condition, got {}",
                    e.line, c.describe());
        return eval(*e.items[c.boolean ? 1 : 2], env, depth);
      }
      case Expr::Kind::Subscript:
        return subscript(e, env, depth);
      case Expr::Kind::Invocation:
        return invoke(e, env, depth);
    }
    fail("line {}: unsupported expression", e.line);
  }

  Value subscript(const Expr& e, Env& env, int depth) {
    Value base = eval(*e.items[0], env, depth);
    KILN_ENSURE(base.kind == Value::Kind::Array || base.kind == Value::Kind::Tuple,
                "line {}: cannot index {}", e.line, base.describe());
    int64_t n = int64_t(base.items.size());
    auto index = [&](const ExprPtr& x, int64_t dflt) {
      if (!x) return dflt;
      int64_t i = value_to_int(eval(*x, env, depth), "index");
      return i < 0 ? i + n : i;
    };
    int64_t i = index(e.items[1], 0);
    if (!e.is_range) {
      KILN_ENSURE(i >= 0 && i < n, "line {}: index {} out of range for {} items", e.line, i, n);
      return base.items[size_t(i)];
    }
    int64_t j = index(e.items[2], n);
    KILN_ENSURE(i >= 0 && j <= n && i <= j, "line {}: range [{}:{}] out of bounds for {} items",
                e.line, i, j, n);
    return Value::array(std::vector<Value>(base.items.begin() + i, base.items.begin() + j));
  }

  Value tensor_op(const char* op, std::vector<std::pair<std::string, Value>> args) {
    Args a(op, "");
    for (auto& [k, v] : args) a.values()[k] = std::move(v);
    return primitives().at(op)(b_, a).at(0);
  }

  Value unary(const Expr& e, const Value& x) {
    if (e.text == "+") return x;
    if (x.kind == Value::Kind::Tensor) return tensor_op(e.text == "-" ? "neg" : "not", {{"x", x}});
    if (e.text == "!") {
      KILN_ENSURE(x.kind == Value::Kind::Bool, "line {}: '!' needs a logical value", e.line);
      return Value::of_bool(!x.boolean);
    }
    if (x.kind == Value::Kind::Integer) return Value::of_int(-x.integer);
    return Value::of_real(-value_to_real(x, "operand of '-'"));
  }

  Value binary(const Expr& e, const Value& x, const Value& y) {
    static const std::map<std::string, const char*> tensor_ops = {
        {"+", "add"}, {"-", "sub"},  {"*", "mul"}, {"/", "div"}, {"^", "pow"},
        {"<", "lt"},  {"<=", "le"},  {">", "gt"},  {">=", "ge"}, {"==", "eq"},
        {"!=", "ne"}, {"&&", "and"}, {"||", "or"}};
    const std::string& op = e.text;
    if (x.kind == Value::Kind::Tensor || y.kind == Value::Kind::Tensor) {
      auto it = tensor_ops.find(op);
      KILN_ENSURE(it != tensor_ops.end(), "line {}: operator '{}' does not apply to tensors",
                  e.line, op);
      return tensor_op(it->second, {{"x", x}, {"y", y}});
    }
    if (op == "in") {
      KILN_ENSURE(y.kind == Value::Kind::Array, "line {}: 'in' needs an array", e.line);
      for (const auto& item : y.items)
        if (item.is_literal() && x.is_literal() &&
            value_to_real(item, "in") == value_to_real(x, "in"))
          return Value::of_bool(true);
      return Value::of_bool(false);
    }
    if (op == "&&" || op == "||") {
      KILN_ENSURE(x.kind == Value::Kind::Bool && y.kind == Value::Kind::Bool,
                  "line {}: '{}' needs logical values", e.line, op);
      return Value::of_bool(op == "&&" ? x.boolean && y.boolean : x.boolean || y.boolean);
    }
    if (x.kind == Value::Kind::String && y.kind == Value::Kind::String) {
      if (op == "==") return Value::of_bool(x.string == y.string);
      if (op == "!=") return Value::of_bool(x.string != y.string);
      if (op == "+") return Value::of_string(x.string + y.string);
    }
    if (x.kind == Value::Kind::Array && y.kind == Value::Kind::Array && op == "+") {
      Value v = x;
      v.items.insert(v.items.end(), y.items.begin(), y.items.end());
      return v;
    }
    if (x.kind == Value::Kind::Integer && y.kind == Value::Kind::Integer) {
      if (op == "+") return Value::of_int(x.integer + y.integer);
      if (op == "-") return Value::of_int(x.integer - y.integer);
      if (op == "*") return Value::of_int(x.integer * y.integer);
      if (op == "/") {
        int64_t d = value_to_int(y, "divisor");
        KILN_ENSURE(d > 0, "line {}: integer division by {}", e.line, d);
        return Value::of_int(x.integer.div(d));
      }
    }
    double a = value_to_real(x, "left operand of '" + op + "'");
    double c = value_to_real(y, "right operand of '" + op + "'");
    if (op == "+") return Value::of_real(a + c);
    if (op == "-") return Value::of_real(a - c);
    if (op == "*") return Value::of_real(a * c);
    if (op == "/") return Value::of_real(a / c);
    if (op == "^") return Value::of_real(std::pow(a, c));
    if (op == "<") return Value::of_bool(a < c);
    if (op == "<=") return Value::of_bool(a <= c);
    if (op == ">") return Value::of_bool(a > c);
    if (op == ">=") return Value::of_bool(a >= c);
    if (op == "==") return Value::of_bool(a == c);
    if (op == "!=") return Value::of_bool(a != c);
    fail("line {}: unsupported operator '{}'", e.line, op);
  }

  Value invoke(const Expr& e, Env& env, int depth) {
    KILN_ENSURE(depth < 64, "line {}: fragments nested more than 64 deep (recursive fragment?)",
                e.line);
    if (e.text == "length_of" || e.text == "shape_of") {
      KILN_ENSURE(e.items.size() == 1, "line {}: {} takes one argument", e.line, e.text);
      Value x = eval(*e.items[0], env, depth);
      if (e.text == "length_of") {
        KILN_ENSURE(x.kind == Value::Kind::Array, "line {}: length_of needs an array", e.line);
        return Value::of_int(int64_t(x.items.size()));
      }
      KILN_ENSURE(x.kind == Value::Kind::Tensor, "line {}: shape_of needs a tensor", e.line);
      std::vector<Value> dims;
      for (const auto& d : b_.fact(x.outlet).shape) dims.push_back(Value::of_int(d));
      return Value::array(dims);
    }
    auto it = fragments_.find(e.text);
    if (it == fragments_.end())
      fail("line {}:{}: unknown operation '{}'{}", e.line, e.column, e.text,
           e.text.rfind("tract_", 0) == 0 ? " (a tract extension kiln does not implement)" : "");
    const Fragment& f = *it->second;
    // Bind arguments to parameters: positional first, then named, then defaults.
    KILN_ENSURE(e.items.size() <= f.params.size(), "line {}: {} takes {} arguments, got {}", e.line,
                f.name, f.params.size(), e.items.size());
    Args args(f.name, e.type_arg.empty() ? f.generic_default : e.type_arg);
    args.set_graph(&b_.graph());
    Env local;
    for (size_t i = 0; i < e.items.size(); i++)
      args.values()[f.params[i].name] = eval(*e.items[i], env, depth);
    for (const auto& [name, value] : e.named) {
      bool known = false;
      for (const auto& p : f.params) known = known || p.name == name;
      KILN_ENSURE(known, "line {}: {} has no parameter '{}'", e.line, f.name, name);
      KILN_ENSURE(!args.values().count(name), "line {}: {}: argument '{}' given twice", e.line,
                  f.name, name);
      args.values()[name] = eval(*value, env, depth);
    }
    for (const auto& p : f.params) {
      if (args.values().count(p.name)) continue;
      KILN_ENSURE(p.default_value != nullptr, "line {}: {}: missing argument '{}'", e.line, f.name,
                  p.name);
      args.values()[p.name] = eval(*p.default_value, local, depth);
    }
    std::vector<Value> results;
    if (f.body) {
      Env inner = args.values();
      for (const auto& a : *f.body) {
        Value v = eval(*a.rhs, inner, depth + 1);
        assign(*a.lhs, v, inner);
      }
      for (const auto& r : f.results) {
        auto rv = inner.find(r.name);
        KILN_ENSURE(rv != inner.end(), "fragment {}: result '{}' is never assigned", f.name,
                    r.name);
        results.push_back(rv->second);
      }
    } else {
      auto prim = primitives().find(f.name);
      KILN_ENSURE(prim != primitives().end(),
                  "line {}: operation '{}' is declared but kiln does not implement it", e.line,
                  f.name);
      try {
        results = prim->second(b_, args);
      } catch (Error& err) {
        err.with_context(fmt::format("line {}: {}", e.line, f.name));
        throw;
      }
    }
    if (results.size() == 1) return results[0];
    Value t;
    t.kind = Value::Kind::Tuple;
    t.items = std::move(results);
    return t;
  }

  // A fragment of the document built as its own graph (an If branch), sharing files and symbols.
  GraphPtr fragment_graph(const std::string& name, const std::vector<Fact>& inputs) {
    auto it = fragments_.find(name);
    KILN_ENSURE(it != fragments_.end() && it->second->body, "no fragment definition named '{}'",
                name);
    const Fragment& f = *it->second;
    KILN_ENSURE(f.params.size() == inputs.size(), "fragment '{}' takes {} tensors, given {}", name,
                f.params.size(), inputs.size());
    KILN_ENSURE(++subgraph_depth_ < 16, "subgraphs nested too deeply at '{}'", name);
    auto graph = std::make_shared<Graph>();
    Builder sub(*graph, b_.files());
    sub.quantization = b_.quantization;
    sub.symbols = b_.symbols;
    Interpreter inner(doc_, sub);
    Env env;
    for (size_t i = 0; i < inputs.size(); i++) {
      sub.set_name_hint(f.params[i].name);
      env[f.params[i].name] = Value::tensor(sub.source(inputs[i]));
    }
    inner.subgraph_depth_ = subgraph_depth_;
    for (const auto& a : *f.body) {
      std::string hint = first_identifier(*a.lhs);
      sub.set_name_hint(hint);
      size_t before = graph->size();
      try {
        Value v = inner.eval(*a.rhs, env, 0);
        inner.assign(*a.lhs, v, env);
        inner.name_result(*a.lhs, v, before);
      } catch (Error& e) {
        e.with_context(fmt::format("fragment {}, line {}: '{}'", name, a.line, hint));
        throw;
      }
    }
    std::vector<Outlet> outputs;
    std::vector<std::string> names;
    for (const auto& r : f.results) {
      auto v = env.find(r.name);
      KILN_ENSURE(v != env.end() && v->second.kind == Value::Kind::Tensor,
                  "fragment {}: result '{}' is not a tensor", name, r.name);
      outputs.push_back(v->second.outlet);
      names.push_back(r.name);
    }
    graph->set_outputs(outputs, names);
    subgraph_depth_--;
    return graph;
  }

  const Document& doc_;
  Builder& b_;
  std::map<std::string, const Fragment*> fragments_;
  int subgraph_depth_ = 0;
};

void check_extensions(const Document& doc, Builder& b) {
  std::string unknown;
  for (const auto& ext : doc.extensions) {
    if (ext == "KHR_enable_fragment_definitions" || ext == "KHR_enable_operator_expressions" ||
        ext == "tract_registry tract_core" || ext == "tract_registry tract_nnef" ||
        ext == "tract_registry tract_pulse" || ext == "kiln_registry kiln_core" ||
        ext == "kiln_registry kiln_audio" || ext == "kiln_registry kiln_pulse")
      continue;
    if (ext.rfind("tract_symbol ", 0) == 0) {
      b.symbols.insert(ext.substr(13));
      continue;
    }
    unknown += (unknown.empty() ? "'" : ", '") + ext + "'";
  }
  KILN_ENSURE(unknown.empty(),
              "unknown NNEF extension(s) {} (kiln knows KHR_enable_fragment_definitions, "
              "KHR_enable_operator_expressions, tract_registry tract_core, tract_registry "
              "tract_pulse, tract_symbol, kiln_registry kiln_core, kiln_registry kiln_audio, "
              "kiln_registry kiln_pulse)",
              unknown);
}

}  // namespace

std::shared_ptr<Graph> load_nnef_files(const FileMap& files, const std::string& source) {
  auto text = files.find("graph.nnef");
  KILN_ENSURE(text != files.end(), "'{}' holds no graph.nnef", source);
  Document doc = parse_document(text->second, "graph.nnef");
  KILN_ENSURE(doc.version.empty() || doc.version.rfind("1.", 0) == 0, "unsupported NNEF version {}",
              doc.version);
  auto graph = std::make_shared<Graph>();
  Builder b(*graph, files);
  check_extensions(doc, b);
  auto quant = files.find("graph.quant");
  if (quant != files.end()) {
    try {
      for (const auto& q : parse_quantization(quant->second)) {
        Quantization entry;
        entry.op = q.invocation->text;
        KILN_ENSURE(q.invocation->items.empty(),
                    "graph.quant entry '{}': arguments must be named (zero_point = 0, ...)",
                    q.tensor);
        for (const auto& [k, v] : q.invocation->named) {
          // Numbers may carry a sign (zero_point = -3).
          const bool negative = v->kind == Expr::Kind::Unary && v->text == "-" && !v->items.empty();
          const Expr& e = negative ? *v->items[0] : *v;
          if (e.kind == Expr::Kind::Integer)
            entry.args[k] = Value::of_int(negative ? -e.integer : e.integer);
          else if (e.kind == Expr::Kind::Real)
            entry.args[k] = Value::of_real(negative ? -e.real : e.real);
          else if (e.kind == Expr::Kind::Bool && !negative)
            entry.args[k] = Value::of_bool(e.boolean);
          else
            fail("graph.quant entry '{}': argument '{}' must be a number or true / false", q.tensor,
                 k);
        }
        validate_quantization(q.tensor, entry);
        KILN_ENSURE(!b.quantization.count(q.tensor), "graph.quant: tensor '{}' has two entries",
                    q.tensor);
        b.quantization[q.tensor] = entry;
      }
    } catch (Error& e) {
      e.with_context("reading graph.quant");
      throw;
    }
  }
  Interpreter(doc, b).run_graph(*doc.graph);
  return graph;
}

std::shared_ptr<Graph> load_nnef(const std::string& path) {
  try {
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec) && !is_archive_path(path)) {
      // A bare graph.nnef: its tensors live next to it.
      std::filesystem::path dir = std::filesystem::path(path).parent_path();
      FileMap files = read_container(dir.empty() ? "." : dir.string());
      auto name = std::filesystem::path(path).filename().string();
      if (name != "graph.nnef") {
        KILN_ENSURE(files.count(name), "cannot read '{}'", path);
        files["graph.nnef"] = files[name];
      }
      return load_nnef_files(files, path);
    }
    return load_nnef_files(read_container(path), path);
  } catch (Error& e) {
    e.with_context("loading NNEF '" + path + "'");
    throw;
  }
}

namespace {

// The stream description file of a container, if it has one.
std::optional<std::string> stream_spec_text(const std::string& path) {
  std::error_code ec;
  std::filesystem::path dir = path;
  if (std::filesystem::is_regular_file(path, ec) && !is_archive_path(path))
    dir = dir.parent_path().empty() ? "." : dir.parent_path();
  if (std::filesystem::is_directory(dir, ec)) {
    // Only the one file: a directory's tensors need not be read again.
    const auto file = dir / kStreamSpecFile;
    if (!std::filesystem::is_regular_file(file, ec)) return std::nullopt;
    std::ifstream in(file, std::ios::binary);
    KILN_ENSURE(in, "cannot read '{}'", file.string());
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  FileMap files = read_container(path);
  auto it = files.find(kStreamSpecFile);
  if (it == files.end()) return std::nullopt;
  return std::move(it->second);
}

}  // namespace

std::optional<StreamSpec> load_nnef_stream_spec(const std::string& path, const Graph& graph) {
  auto text = stream_spec_text(path);
  if (!text) return std::nullopt;
  return stream_spec_from_json(*text, graph.inputs().size(), graph.outputs().size(), path);
}

bool has_nnef_stream_spec(const std::string& path) {
  return stream_spec_text(path).has_value();
}

}  // namespace kiln::nnef
