// NNEF primitives holding subgraphs: kiln_core_if, kiln_core_loop.
#include "io/nnef/primitive_util.h"
#include "ops/control/if.h"
#include "ops/control/loop.h"

namespace kiln::nnef::prim {

namespace {

V kiln_if(Builder& b, const Args& a) {
  Outlet cond = a.tensor(b, "condition");
  std::vector<Outlet> values = a.tensors(b, "values");
  std::vector<Fact> facts;
  std::vector<size_t> map;
  for (size_t i = 0; i < values.size(); i++) {
    facts.push_back(b.fact(values[i]));
    map.push_back(i + 1);
  }
  KILN_ENSURE(b.fragment_graph != nullptr, "kiln_core_if: subgraphs are not available here");
  ops::IfBranch then_branch{b.fragment_graph(a.string("then_branch"), facts), map};
  // One fragment for both branches (a branch that can never run) gives one shared graph.
  ops::IfBranch else_branch{a.string("else_branch") == a.string("then_branch")
                                ? then_branch.graph
                                : b.fragment_graph(a.string("else_branch"), facts),
                            map};
  int64_t n = a.integer("outputs");
  KILN_ENSURE(n >= 1 && size_t(n) == then_branch.graph->outputs().size(),
              "kiln_core_if: {} outputs declared, the then branch has {}", n,
              then_branch.graph->outputs().size());
  std::vector<Outlet> inputs = {cond};
  inputs.insert(inputs.end(), values.begin(), values.end());
  // assumed: the branch typing by cases chose (the If refuses the other one at run time).
  std::optional<bool> assumed;
  std::string assumed_text = a.has("assumed") ? a.string("assumed") : "";
  KILN_ENSURE(assumed_text.empty() || assumed_text == "then" || assumed_text == "else",
              "kiln_core_if: assumed must be 'then', 'else' or '', got '{}'", assumed_text);
  if (!assumed_text.empty()) assumed = assumed_text == "then";
  auto outs =
      b.add_multi(std::make_shared<ops::If>(then_branch, else_branch, assumed), inputs, size_t(n));
  V items;
  for (auto o : outs) items.push_back(Value::tensor(o));
  return {Value::array(items)};
}

V kiln_loop(Builder& b, const Args& a) {
  auto optional = [&](const char* name) {
    const Value& v = a.get(name);
    bool absent = v.kind == Value::Kind::Array && v.items.empty();
    return absent ? Outlet{} : a.tensor(b, name);
  };
  Outlet trips = optional("trip_count"), cond = optional("condition");
  std::vector<Outlet> carried = a.tensors(b, "carried");
  std::vector<Outlet> captured = a.tensors(b, "captured");
  std::vector<Fact> facts{Fact(DatumType::I64, std::vector<Dim>{}),
                          Fact(DatumType::Bool, std::vector<Dim>{})};
  for (Outlet o : carried) facts.push_back(ops::without_value(b.fact(o)));
  for (Outlet o : captured) facts.push_back(b.fact(o));
  KILN_ENSURE(b.fragment_graph != nullptr, "kiln_core_loop: subgraphs are not available here");
  GraphPtr body = b.fragment_graph(a.string("body"), facts);
  int64_t n = a.integer("outputs");
  KILN_ENSURE(n >= 0 && size_t(n) + 1 == body->outputs().size(),
              "kiln_core_loop: {} outputs declared, the body returns {} values (condition "
              "first)",
              n, body->outputs().size());
  KILN_ENSURE(size_t(n) >= carried.size(), "kiln_core_loop: {} outputs for {} carried values", n,
              carried.size());
  std::vector<Outlet> inputs = {trips, cond};
  inputs.insert(inputs.end(), carried.begin(), carried.end());
  inputs.insert(inputs.end(), captured.begin(), captured.end());
  auto outs = b.add_multi(std::make_shared<ops::Loop>(body, carried.size()), inputs, size_t(n));
  V items;
  for (auto o : outs) items.push_back(Value::tensor(o));
  return {Value::array(items)};
}

}  // namespace

void register_control_primitives(std::map<std::string, Primitive>& p) {
  p["kiln_core_if"] = kiln_if;
  p["kiln_core_loop"] = kiln_loop;
}

}  // namespace kiln::nnef::prim
