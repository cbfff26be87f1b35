// NNEF serializers of If and Loop (kiln_core_if, kiln_core_loop with fragment bodies).
#include "io/nnef/serializer_util.h"
#include "ops/control/if.h"
#include "ops/control/loop.h"

namespace kiln::nnef::ser {

namespace {

// If as kiln_core_if: the condition, every other node input (the values the branches capture),
// and the two branches as fragments taking those values.
bool write_if(Ctx& c, const Node& n) {
  const auto& op = op_as<ops::If>(n);
  std::vector<Fact> facts;
  std::string args;
  for (size_t i = 1; i < n.inputs.size(); i++) {
    KILN_ENSURE(has_input(n, i), "If: captured value {} is absent", i);
    facts.push_back(c.fact(in(n, i)));
    args += (i > 1 ? ", " : "") + c.identifier(in(n, i));
  }
  auto mapped = [](const ops::IfBranch& b) {
    std::vector<size_t> map;
    for (size_t i : b.input_map) map.push_back(i - 1);
    return map;
  };
  // A branch whose analysis fails for these inputs can never run with them (the If op makes
  // the same assumption for its output facts): the live branch then stands for both.
  auto live = [&](const ops::IfBranch& b) {
    Graph g = *b.graph;
    auto map = mapped(b);
    try {
      for (size_t j = 0; j < map.size(); j++) g.set_input_fact(j, facts.at(map[j]));
      g.analyse();
    } catch (const Error&) {
      return false;
    }
    return true;
  };
  bool then_live = live(op.then_branch()), else_live = live(op.else_branch());
  if (op.then_branch().graph == op.else_branch().graph &&
      op.then_branch().input_map == op.else_branch().input_map)
    else_live = false;  // the same graph: written once
  KILN_ENSURE(then_live || else_live, "If: neither branch can run with inputs of these facts");
  std::string then_name, else_name;
  if (then_live)
    then_name = c.write_fragment(*op.then_branch().graph, mapped(op.then_branch()), facts,
                                 c.planned_name({n.id, 0}) + "_then");
  if (else_live)
    else_name = c.write_fragment(*op.else_branch().graph, mapped(op.else_branch()), facts,
                                 c.planned_name({n.id, 0}) + "_else");
  if (!then_live) then_name = else_name;
  if (!else_live) else_name = then_name;
  c.use_extension("kiln_registry kiln_core", "If");
  std::string assumed;
  if (op.assumed()) assumed = fmt::format(", assumed = '{}'", *op.assumed() ? "then" : "else");
  c.assign_all(n, fmt::format("kiln_core_if({}, [{}], then_branch = '{}', else_branch = '{}', "
                              "outputs = {}{})",
                              c.identifier(in(n, 0)), args, then_name, else_name, n.outputs.size(),
                              assumed));
  return true;
}

// Loop as kiln_core_loop: the trip count and condition ([] when absent), the carried initial
// values, the captured values, and the body as a fragment taking (iteration, condition,
// carried..., captured...) and returning (condition, carried..., scan outputs...).
bool write_loop(Ctx& c, const Node& n) {
  const auto& op = op_as<ops::Loop>(n);
  const Graph& body = *op.body();
  const size_t carried = op.num_carried();
  const size_t captured = body.inputs().size() - 2 - carried;
  KILN_ENSURE(n.inputs.size() == 2 + carried + captured, "Loop: {} inputs, expected {}",
              n.inputs.size(), 2 + carried + captured);
  std::vector<Fact> facts{Fact(DatumType::I64, std::vector<Dim>{}),
                          Fact(DatumType::Bool, std::vector<Dim>{})};
  std::string carried_args, captured_args;
  for (size_t i = 0; i < carried; i++) {
    KILN_ENSURE(has_input(n, 2 + i), "Loop: carried value {} is absent", i);
    // The node's output facts are the carried values' facts generalized over iterations.
    facts.push_back(ops::without_value(c.fact({n.id, int(i)})));
    carried_args += (i ? ", " : "") + c.identifier(in(n, 2 + i));
  }
  for (size_t i = 0; i < captured; i++) {
    KILN_ENSURE(has_input(n, 2 + carried + i), "Loop: captured value {} is absent", i);
    facts.push_back(c.fact(in(n, 2 + carried + i)));
    captured_args += (i ? ", " : "") + c.identifier(in(n, 2 + carried + i));
  }
  // Fragment parameters and results are plain tensors: sequences, optionals and strings
  // flowing through the loop have no NNEF form (the Loop is reported as not writable).
  auto plain = [](const Fact& f) { return is_numeric(f.dt) || f.dt == DatumType::Bool; };
  for (const auto& f : facts)
    if (!plain(f)) return false;
  for (Outlet o : body.outputs())
    if (!plain(body.fact(o))) return false;
  std::vector<size_t> map;
  for (size_t j = 0; j < body.inputs().size(); j++) map.push_back(j);
  std::string body_name = c.write_fragment(body, map, facts, c.planned_name({n.id, 0}) + "_body");
  std::string args;
  if (has_input(n, 0)) args += "trip_count = " + c.identifier(in(n, 0)) + ", ";
  if (has_input(n, 1)) args += "condition = " + c.identifier(in(n, 1)) + ", ";
  c.use_extension("kiln_registry kiln_core", "Loop");
  c.assign_all(n, fmt::format("kiln_core_loop({}carried = [{}], captured = [{}], body = '{}', "
                              "outputs = {})",
                              args, carried_args, captured_args, body_name, n.outputs.size()));
  return true;
}

}  // namespace

void register_control_serializers(std::map<std::string, Serializer>& s) {
  s["If"] = write_if;
  s["Loop"] = write_loop;
}

}  // namespace kiln::nnef::ser
