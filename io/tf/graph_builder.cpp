#include "io/tf/graph_builder.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/error.h"
#include "core/source_ops.h"
#include "io/tf/tf_tensor.h"
#include "ops/control/loop.h"
#include "ops/control/subgraph_runner.h"

namespace kiln::tf_io {

namespace {

bool is_frame_op(const std::string& op) {
  return op == "Enter" || op == "RefEnter" || op == "Exit" || op == "RefExit" || op == "Merge" ||
         op == "RefMerge" || op == "Switch" || op == "RefSwitch" || op == "NextIteration" ||
         op == "RefNextIteration" || op == "LoopCond";
}

std::string attr_s(const tfproto::NodeDef& node, const std::string& key) {
  auto it = node.attr().find(key);
  return it == node.attr().end() ? std::string() : it->second.s();
}

// Nodes that are never model outputs when the outputs are guessed.
bool is_never_output(const std::string& op) {
  return op == "Const" || op == "NoOp" || op == "Placeholder" || op == "PlaceholderWithDefault" ||
         op == "Assert" || op == "VariableV2" || op == "Variable" || op == "VarHandleOp" ||
         op == "SaveV2" || op == "RestoreV2" || op == "Assign" ||
         (is_frame_op(op) && op != "Merge");
}

}  // namespace

GraphBuilder::GraphBuilder(const tfproto::GraphDef& graph_def, const LoadOptions& options)
    : graph_def_(graph_def), options_(options), graph_(std::make_shared<Graph>()) {}

std::pair<std::string, int> GraphBuilder::parse_ref(const std::string& ref) {
  std::string name = ref;
  if (!name.empty() && name[0] == '^') name = name.substr(1);
  int port = 0;
  auto colon = name.rfind(':');
  if (colon != std::string::npos) {
    const std::string digits = name.substr(colon + 1);
    bool numeric = !digits.empty() && std::all_of(digits.begin(), digits.end(), ::isdigit);
    if (numeric) {
      KILN_ENSURE(digits.size() < 9, "input reference '{}': output index too large", ref);
      port = std::stoi(digits);
      name = name.substr(0, colon);
    }
  }
  return {name, port};
}

const tfproto::NodeDef* GraphBuilder::find_node(const std::string& name) const {
  auto it = nodes_.find(name);
  return it == nodes_.end() ? nullptr : it->second;
}

std::string GraphBuilder::frame_of(const std::string& name) {
  auto memo = frame_of_.find(name);
  if (memo != frame_of_.end()) return memo->second;
  // A node is in the frame of its first input that is in one; Enter starts a frame, Exit leaves
  // it, Merge takes its Enter's. Iterative post-order walk (graphs can be very deep); the walk
  // never enters a Merge's inputs, so it does not follow loops' back edges.
  auto own_frame = [&](const tfproto::NodeDef& node, std::string& frame) {
    const std::string& op = node.op();
    if (op == "Enter" || op == "RefEnter") {
      frame = attr_s(node, "frame_name");
      return true;
    }
    if (op == "Exit" || op == "RefExit") return true;
    if (op == "Merge" || op == "RefMerge") {
      for (const auto& in : node.input()) {
        const auto* src = find_node(parse_ref(in).first);
        if (src && (src->op() == "Enter" || src->op() == "RefEnter")) {
          frame = attr_s(*src, "frame_name");
          return true;
        }
      }
    }
    return false;  // a tf.cond Merge is in the frame of its inputs
  };
  std::set<std::string> in_progress;
  std::vector<std::pair<std::string, int>> stack{{name, 0}};
  while (!stack.empty()) {
    auto [current, next] = stack.back();
    const tfproto::NodeDef* node = find_node(current);
    std::string frame;
    if (!node || own_frame(*node, frame)) {
      frame_of_[current] = frame;
      stack.pop_back();
      continue;
    }
    if (next == 0) in_progress.insert(current);
    if (next < node->input_size()) {
      stack.back().second++;
      std::string in = parse_ref(node->input(next)).first;
      if (!frame_of_.count(in) && !in_progress.count(in)) stack.push_back({in, 0});
      continue;
    }
    for (const auto& in : node->input()) {
      auto it = frame_of_.find(parse_ref(in).first);
      if (it != frame_of_.end() && !it->second.empty()) {
        frame = it->second;
        break;
      }
    }
    frame_of_[current] = frame;
    in_progress.erase(current);
    stack.pop_back();
  }
  return frame_of_[name];
}

void GraphBuilder::find_frames() {
  for (const auto& node : graph_def_.node()) {
    if (node.op() != "Merge" && node.op() != "RefMerge") continue;
    const tfproto::NodeDef* enter = nullptr;
    const tfproto::NodeDef* next = nullptr;
    for (const auto& in : node.input()) {
      if (!in.empty() && in[0] == '^') continue;
      const auto* src = find_node(parse_ref(in).first);
      if (!src) continue;
      if (src->op() == "Enter" || src->op() == "RefEnter") enter = src;
      if (src->op() == "NextIteration" || src->op() == "RefNextIteration") next = src;
    }
    if (!enter || !next) continue;  // not a loop variable (a tf.cond Merge)
    KILN_ENSURE(next->input_size() >= 1, "NextIteration node '{}' has no input", next->name());
    Frame& frame = frames_[attr_s(*enter, "frame_name")];
    frame.name = attr_s(*enter, "frame_name");
    frame.var_of[node.name()] = frame.merges.size();
    frame.var_of[next->name()] = frame.merges.size();
    frame.merges.push_back(&node);
    frame.enters.push_back(enter);
    frame.next_refs.push_back(next->input(0));
  }
  for (const auto& node : graph_def_.node()) {
    if (node.op() != "Switch" && node.op() != "RefSwitch") continue;
    if (node.input_size() < 2) continue;
    const auto* merge = find_node(parse_ref(node.input(0)).first);
    const auto* pred = find_node(parse_ref(node.input(1)).first);
    if (!merge || !pred || pred->op() != "LoopCond") continue;
    for (auto& [name, frame] : frames_) {
      auto it = frame.var_of.find(merge->name());
      if (it == frame.var_of.end()) continue;
      frame.var_of[node.name()] = it->second;
      KILN_ENSURE(!frame.loop_cond || frame.loop_cond == pred,
                  "while loop '{}' has two LoopCond nodes ('{}', '{}')", name,
                  frame.loop_cond->name(), pred->name());
      frame.loop_cond = pred;
    }
  }
  for (const auto& node : graph_def_.node()) {
    if (node.op() != "Exit" && node.op() != "RefExit") continue;
    KILN_ENSURE(node.input_size() >= 1, "Exit node '{}' has no input", node.name());
    const std::string sw = parse_ref(node.input(0)).first;
    for (auto& [name, frame] : frames_) {
      auto it = frame.var_of.find(sw);
      if (it != frame.var_of.end()) frame.var_of[node.name()] = it->second;
    }
  }
  for (const auto& [name, frame] : frames_)
    KILN_ENSURE(frame.loop_cond, "while loop '{}' has no LoopCond node", name);
}

std::vector<std::string> GraphBuilder::default_outputs() {
  std::set<std::string> consumed;
  for (const auto& node : graph_def_.node())
    for (const auto& in : node.input())
      if (in.empty() || in[0] != '^') consumed.insert(parse_ref(in).first);
  std::vector<std::string> outputs;
  for (const auto& node : graph_def_.node()) {
    if (consumed.count(node.name()) || is_never_output(node.op())) continue;
    if (!frame_of(node.name()).empty()) continue;
    outputs.push_back(node.name());
  }
  KILN_ENSURE(!outputs.empty(), "cannot tell the graph's outputs: give them with --output-node");
  return outputs;
}

void GraphBuilder::check_supported(const std::vector<std::string>& outputs) {
  const OpRegistry& registry = OpRegistry::instance();
  std::set<std::string> cut(options_.input_nodes.begin(), options_.input_nodes.end());
  std::set<std::string> seen;
  std::vector<std::string> stack;
  for (const auto& o : outputs) stack.push_back(parse_ref(o).first);
  std::map<std::string, std::pair<int, std::string>> missing;  // op -> count, example node
  while (!stack.empty()) {
    std::string name = stack.back();
    stack.pop_back();
    if (!seen.insert(name).second) continue;
    const tfproto::NodeDef* node = find_node(name);
    KILN_ENSURE(node, "node '{}' does not exist in the graph", name);
    if (cut.count(name)) continue;
    const std::string& op = node->op();
    bool known = registry.find(op) || op == "Placeholder";
    if (is_frame_op(op) && !(op == "Switch" || op == "Merge")) {
      known = false;
      for (const auto& [fname, frame] : frames_)
        known = known || frame.var_of.count(name) || frame.loop_cond == node ||
                ((op == "Enter" || op == "RefEnter") && attr_s(*node, "frame_name") == fname);
    }
    if (!known) {
      auto& m = missing[op];
      if (m.first++ == 0) m.second = name;
    }
    for (const auto& in : node->input()) {
      if (in.empty() || in[0] == '^') continue;
      std::string src = parse_ref(in).first;
      KILN_ENSURE(find_node(src), "node '{}' ({}): input '{}' refers to a node that does not exist",
                  name, op, in);
      stack.push_back(src);
    }
  }
  if (missing.empty()) return;
  std::string list;
  for (const auto& [op, m] : missing)
    list +=
        fmt::format("\n  {} ({} node{}, e.g. '{}')", op, m.first, m.first > 1 ? "s" : "", m.second);
  fail("unsupported TensorFlow ops ({}):{}", missing.size(), list);
}

std::shared_ptr<Graph> GraphBuilder::build() {
  for (const auto& node : graph_def_.node()) {
    KILN_ENSURE(!node.name().empty(), "a node has an empty name (op {})", node.op());
    KILN_ENSURE(nodes_.emplace(node.name(), &node).second, "two nodes are named '{}'", node.name());
  }
  KILN_ENSURE(!nodes_.empty(), "the GraphDef has no nodes");
  for (const auto& name : options_.input_nodes)
    KILN_ENSURE(find_node(name), "--input-node {}: no such node in the graph", name);
  find_frames();
  std::vector<std::string> outputs =
      options_.output_nodes.empty() ? default_outputs() : options_.output_nodes;
  check_supported(outputs);
  Scope root;
  root.graph = graph_.get();
  // Translate the top-level nodes inputs first (an explicit post-order walk), so that
  // resolve() recursion stays shallow even on very deep graphs.
  {
    std::set<std::string> cut(options_.input_nodes.begin(), options_.input_nodes.end());
    std::set<std::string> visited;
    std::vector<std::pair<std::string, size_t>> stack;
    for (const auto& o : outputs) stack.push_back({parse_ref(o).first, 0});
    while (!stack.empty()) {
      auto& [name, next] = stack.back();
      const tfproto::NodeDef* node = find_node(name);
      if (next == 0 && !visited.insert(name).second) {
        stack.pop_back();
        continue;
      }
      const bool expand =
          node && !cut.count(name) && frame_of(name).empty() && !is_frame_op(node->op());
      if (expand && next < static_cast<size_t>(node->input_size())) {
        const std::string& in = node->input(static_cast<int>(next++));
        if (!in.empty() && in[0] != '^') stack.push_back({parse_ref(in).first, 0});
        continue;
      }
      std::string done = name;
      stack.pop_back();
      if (expand && node->op() != "Placeholder" && OpRegistry::instance().find(node->op()))
        resolve(root, done);
    }
  }
  std::vector<Outlet> outlets;
  for (const auto& ref : outputs) {
    outlets.push_back(resolve(root, ref));
    KILN_ENSURE(outlets.back() != kDeadOutlet,
                "output '{}' is on a tf.cond branch its constant predicate does not take", ref);
  }
  graph_->set_outputs(outlets, outputs);
  // Model inputs in GraphDef order.
  std::vector<std::pair<int, Outlet>> sources;
  std::map<std::string, int> order;
  for (int i = 0; i < graph_def_.node_size(); i++) order[graph_def_.node(i).name()] = i;
  for (const auto& in : graph_->inputs())
    sources.push_back({order[graph_->node(in.node).name], in});
  std::stable_sort(sources.begin(), sources.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Outlet> inputs;
  for (const auto& s : sources) inputs.push_back(s.second);
  graph_->set_inputs(inputs);
  return graph_;
}

Outlet GraphBuilder::capture(Scope& scope, const std::string& ref) {
  Outlet outer = resolve(*scope.parent, ref);
  auto& caps = *scope.captures;
  auto it = caps.body_of_outer.find(outer);
  if (it != caps.body_of_outer.end()) return it->second;
  const Fact* f = fact_of(*scope.parent->graph, outer);
  Outlet body = scope.graph->add_source(parse_ref(ref).first, f ? *f : Fact());
  caps.body_of_outer[outer] = body;
  caps.outer.push_back(outer);
  caps.body.push_back(body);
  return body;
}

Outlet GraphBuilder::resolve(Scope& scope, const std::string& ref) {
  auto [name, port] = parse_ref(ref);
  const tfproto::NodeDef* node = find_node(name);
  KILN_ENSURE(node, "input '{}' refers to a node that does not exist", ref);
  const std::string& op = node->op();
  const bool cut = std::find(options_.input_nodes.begin(), options_.input_nodes.end(), name) !=
                   options_.input_nodes.end();
  if (scope.frame && !cut) {
    const Frame& frame = *scope.frame;
    auto var = frame.var_of.find(name);
    if ((op == "Merge" || op == "RefMerge") && var != frame.var_of.end()) {
      KILN_ENSURE(port == 0, "while loop '{}': output {} of Merge '{}' is not supported",
                  frame.name, port, name);
      return scope.merge_bind.at(name);
    }
    if ((op == "Switch" || op == "RefSwitch") && var != frame.var_of.end()) {
      KILN_ENSURE(port == 1,
                  "while loop '{}': the false output of Switch '{}' is used inside the loop",
                  frame.name, name);
      return scope.merge_bind.at(frame.merges[var->second]->name());
    }
    if (op == "Enter" || op == "RefEnter") {
      KILN_ENSURE(attr_s(*node, "frame_name") == frame.name,
                  "nested while loops are not supported (Enter '{}' of frame '{}' inside '{}')",
                  name, attr_s(*node, "frame_name"), frame.name);
      KILN_ENSURE(node->input_size() >= 1, "Enter node '{}' has no input", name);
      if (scope.captures) return capture(scope, node->input(0));
      return resolve(*scope.parent, node->input(0));
    }
    if (op != "Const" && frame_of(name) != frame.name) {
      if (scope.captures) return capture(scope, ref);
      return resolve(*scope.parent, ref);
    }
  } else if (!cut) {
    if (op == "Exit" || op == "RefExit") {
      std::string fname;
      for (const auto& [n, f] : frames_)
        if (f.var_of.count(name)) fname = n;
      KILN_ENSURE(!fname.empty(), "Exit node '{}' is not part of a recognised while loop", name);
      KILN_ENSURE(port == 0, "Exit node '{}' has one output, {} requested", name, port);
      auto it = scope.loops.find(fname);
      if (it == scope.loops.end()) {
        try {
          it = scope.loops.emplace(fname, build_loop(scope, frames_.at(fname))).first;
        } catch (Error& e) {
          e.with_context(fmt::format("translating while loop '{}'", fname));
          throw;
        }
      }
      return it->second.at(frames_.at(fname).var_of.at(name));
    }
    std::string fname = frame_of(name);
    KILN_ENSURE(fname.empty() || op == "Const",
                "node '{}' ({}) belongs to while loop '{}' but is used outside it", name, op,
                fname);
  }
  auto done = scope.done.find(name);
  if (done == scope.done.end()) {
    KILN_ENSURE(scope.in_progress.insert(name).second, "cycle in the graph through node '{}' ({})",
                name, op);
    std::vector<Outlet> outs;
    try {
      outs = translate(scope, *node);
    } catch (Error& e) {
      e.with_context(fmt::format("translating node '{}' ({})", name, op));
      throw;
    }
    scope.in_progress.erase(name);
    done = scope.done.emplace(name, std::move(outs)).first;
  }
  const auto& outs = done->second;
  if (outs.size() == 1 && outs[0] == kDeadOutlet) return kDeadOutlet;
  if (port >= 0 && static_cast<size_t>(port) < outs.size() && outs[port] == kDeadOutlet)
    return kDeadOutlet;
  KILN_ENSURE(port >= 0 && static_cast<size_t>(port) < outs.size() && outs[port].present(),
              "node '{}' ({}) has no output {}", name, op, port);
  return outs[static_cast<size_t>(port)];
}

std::vector<Outlet> GraphBuilder::translate(Scope& scope, const tfproto::NodeDef& node) {
  const std::string& op = node.op();
  const bool cut = std::find(options_.input_nodes.begin(), options_.input_nodes.end(),
                             node.name()) != options_.input_nodes.end();
  if (cut || op == "Placeholder") {
    KILN_ENSURE(!scope.frame, "model input '{}' inside a while loop", node.name());
    DatumType dt = DatumType::F32;
    for (const char* key : {"dtype", "T", "out_type"}) {
      auto it = node.attr().find(key);
      if (it != node.attr().end() && it->second.value_case() == tfproto::AttrValue::kType) {
        dt = datum_type_from_tf(it->second.type());
        break;
      }
    }
    std::optional<std::vector<Dim>> dims;
    auto shape = node.attr().find("shape");
    if (!cut && shape != node.attr().end() && shape->second.has_shape())
      dims = dims_from_tf(shape->second.shape());
    auto out_shapes = node.attr().find("_output_shapes");
    if (!dims && out_shapes != node.attr().end() && out_shapes->second.list().shape_size() > 0)
      dims = dims_from_tf(out_shapes->second.list().shape(0));
    Fact fact(dt, dims.value_or(std::vector<Dim>{}));
    if (cut && node.op() != "Placeholder") {
      // The fact the node has in the uncut graph, when that graph can be analysed.
      try {
        LoadOptions whole;
        whole.output_nodes = {node.name()};
        auto g = GraphBuilder(graph_def_, whole).build();
        g->analyse();
        fact = ops::without_value(g->fact(g->outputs()[0]));
      } catch (const Error&) {
      }
    }
    // Unknown rank: a scalar placeholder fact, for -i to replace.
    return {graph_->add_source(node.name(), fact)};
  }
  KILN_ENSURE(!is_frame_op(op) || op == "Switch" || op == "Merge",
              "{} node outside a recognised while loop", op);
  const Translator* translator = OpRegistry::instance().find(op);
  KILN_ENSURE(translator, "unsupported TensorFlow op {}", op);
  NodeContext ctx(node, *this, scope);
  try {
    (*translator)(ctx);
  } catch (const DeadInput&) {
    // An input is on the branch a constant tf.cond predicate did not take: so is this node.
    return {kDeadOutlet};
  }
  auto it = scope.done.find(node.name());
  KILN_ENSURE(it != scope.done.end(), "translator of {} declared no output", op);
  return it->second;
}

std::vector<Outlet> GraphBuilder::build_loop(Scope& scope, const Frame& frame) {
  KILN_ENSURE(!scope.frame, "nested while loops are not supported ('{}' inside '{}')", frame.name,
              scope.frame ? scope.frame->name : "");
  const size_t n = frame.merges.size();
  std::vector<Outlet> init;
  for (size_t k = 0; k < n; k++) {
    const auto& enter = *frame.enters[k];
    KILN_ENSURE(enter.input_size() >= 1, "Enter node '{}' has no input", enter.name());
    KILN_ENSURE(frame_of(parse_ref(enter.input(0)).first).empty(),
                "nested while loops are not supported (Enter '{}')", enter.name());
    init.push_back(resolve(scope, enter.input(0)));
  }
  KILN_ENSURE(frame.loop_cond->input_size() >= 1, "LoopCond '{}' has no input",
              frame.loop_cond->name());
  const std::string& cond_ref = frame.loop_cond->input(0);
  // The condition on the initial values, computed before the loop.
  Scope init_scope;
  init_scope.graph = scope.graph;
  init_scope.parent = &scope;
  init_scope.frame = &frame;
  for (size_t k = 0; k < n; k++) init_scope.merge_bind[frame.merges[k]->name()] = init[k];
  Outlet cond0 = resolve(init_scope, cond_ref);

  auto body = std::make_shared<Graph>();
  Outlet iter = body->add_source(frame.name + "/iteration", Fact(DatumType::I64, Shape{}));
  Outlet cond_in = body->add_source(frame.name + "/cond", Fact(DatumType::Bool, Shape{}));
  Scope body_scope;
  body_scope.graph = body.get();
  body_scope.parent = &scope;
  body_scope.frame = &frame;
  body_scope.captures = std::make_shared<Captures>();
  std::vector<Outlet> vars;
  for (size_t k = 0; k < n; k++) {
    const Fact* f = fact_of(*scope.graph, init[k]);
    Outlet v = body->add_source(frame.merges[k]->name(), f ? ops::without_value(*f) : Fact());
    vars.push_back(v);
    body_scope.merge_bind[frame.merges[k]->name()] = v;
  }
  std::vector<Outlet> next;
  for (size_t k = 0; k < n; k++) next.push_back(resolve(body_scope, frame.next_refs[k]));
  // The condition on the next values, computed at the end of each iteration.
  Scope next_scope;
  next_scope.graph = body.get();
  next_scope.parent = &scope;
  next_scope.frame = &frame;
  next_scope.captures = body_scope.captures;
  for (size_t k = 0; k < n; k++) next_scope.merge_bind[frame.merges[k]->name()] = next[k];
  Outlet cond_next = resolve(next_scope, cond_ref);

  std::vector<Outlet> body_outputs{cond_next};
  std::vector<std::string> names{"cond"};
  for (size_t k = 0; k < n; k++) {
    body_outputs.push_back(next[k]);
    names.push_back(frame.next_refs[k]);
  }
  body->set_outputs(body_outputs, names);
  std::vector<Outlet> body_inputs{iter, cond_in};
  body_inputs.insert(body_inputs.end(), vars.begin(), vars.end());
  const auto& caps = *body_scope.captures;
  body_inputs.insert(body_inputs.end(), caps.body.begin(), caps.body.end());
  body->set_inputs(body_inputs);

  std::vector<Outlet> inputs{Outlet{}, cond0};
  if (auto trips = counted_trips(scope, frame, init))
    inputs[0] = scope.graph->add_const(frame.name + "/trip_count", Tensor::scalar<int64_t>(*trips));
  inputs.insert(inputs.end(), init.begin(), init.end());
  inputs.insert(inputs.end(), caps.outer.begin(), caps.outer.end());
  auto loop = std::make_shared<ops::Loop>(body, n);
  int id = scope.graph->add_node(frame.name, loop, inputs, n);
  std::vector<Outlet> outs;
  for (size_t k = 0; k < n; k++) outs.push_back({id, static_cast<int>(k)});
  return outs;
}

std::optional<int64_t> GraphBuilder::counted_trips(Scope& scope, const Frame& frame,
                                                   const std::vector<Outlet>& init) {
  auto node_of = [&](const std::string& ref) { return find_node(parse_ref(ref).first); };
  auto skip_identity = [&](const tfproto::NodeDef* n, int& port) {
    while (n && n->op() == "Identity" && n->input_size() >= 1) {
      port = parse_ref(n->input(0)).second;
      n = node_of(n->input(0));
    }
    return n;
  };
  auto const_value = [&](const tfproto::NodeDef* n) -> std::optional<int64_t> {
    if (!n) return std::nullopt;
    Outlet o;
    if (n->op() == "Const") {
      auto it = n->attr().find("value");
      if (it == n->attr().end() || !it->second.has_tensor()) return std::nullopt;
      Tensor t = tensor_from_tf(it->second.tensor());
      if (t.numel() != 1 || !is_integer(t.dtype())) return std::nullopt;
      return t.value_as_i64(0);
    }
    if ((n->op() == "Enter") && n->input_size() >= 1 &&
        frame_of(parse_ref(n->input(0)).first).empty())
      o = resolve(scope, n->input(0));
    else
      return std::nullopt;
    const Fact* f = fact_of(*scope.graph, o);
    if (!f || !f->value || f->value->numel() != 1 || !is_integer(f->dt)) return std::nullopt;
    return f->value->value_as_i64(0);
  };
  const tfproto::NodeDef* less = node_of(frame.loop_cond->input(0));
  if (!less || less->op() != "Less" || less->input_size() != 2) return std::nullopt;
  const tfproto::NodeDef* counter = node_of(less->input(0));
  if (!counter || (counter->op() != "Merge")) return std::nullopt;
  auto var = frame.var_of.find(counter->name());
  if (var == frame.var_of.end()) return std::nullopt;
  const size_t k = var->second;
  auto limit = const_value(node_of(less->input(1)));
  // next = counter + 1, the counter read through Switch:1 (and Identity nodes).
  const tfproto::NodeDef* add = node_of(frame.next_refs[k]);
  if (!limit || !add || (add->op() != "Add" && add->op() != "AddV2") || add->input_size() != 2)
    return std::nullopt;
  bool counts = false;
  for (int side = 0; side < 2; side++) {
    int port = parse_ref(add->input(side)).second;
    const tfproto::NodeDef* x = skip_identity(node_of(add->input(side)), port);
    auto one = const_value(node_of(add->input(1 - side)));
    auto sw = x ? frame.var_of.find(x->name()) : frame.var_of.end();
    if (x && x->op() == "Switch" && port == 1 && sw != frame.var_of.end() && sw->second == k &&
        one == 1)
      counts = true;
  }
  if (!counts) return std::nullopt;
  const Fact* start = fact_of(*scope.graph, init[k]);
  if (!start || !start->value || start->value->numel() != 1 || !is_integer(start->dt))
    return std::nullopt;
  return std::max<int64_t>(0, *limit - start->value->value_as_i64(0));
}

const Fact* GraphBuilder::fact_of(Graph& graph, Outlet outlet) {
  auto& state = analysed_[&graph];  // 0 not yet, 1 analysed, 2 failed
  state.resize(graph.size(), 0);
  std::vector<int> todo;
  std::vector<int> stack{outlet.node};
  std::set<int> seen;
  while (!stack.empty()) {
    int id = stack.back();
    stack.pop_back();
    if (state[static_cast<size_t>(id)] != 0 || !seen.insert(id).second) continue;
    todo.push_back(id);
    for (const auto& in : graph.node(id).inputs)
      if (in.present()) stack.push_back(in.node);
  }
  std::sort(todo.begin(), todo.end());
  for (int id : todo) {
    bool inputs_ok = true;
    for (const auto& in : graph.node(id).inputs)
      if (in.present() && state[static_cast<size_t>(in.node)] == 2) inputs_ok = false;
    char result = 2;
    if (inputs_ok) {
      try {
        graph.analyse_node(id);
        result = 1;
      } catch (const Error&) {
        result = 2;
      }
    }
    state[static_cast<size_t>(id)] = result;
  }
  if (state[static_cast<size_t>(outlet.node)] != 1) return nullptr;
  return &graph.fact(outlet);
}

}  // namespace kiln::tf_io
