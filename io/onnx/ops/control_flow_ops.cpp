// ONNX translators for the control-flow op family: If, Loop, Scan.
// Subgraphs capture values of enclosing scopes; those become extra node inputs appended after
// the ONNX inputs, in the order of the body's capture sources.
#include <algorithm>

#include "io/onnx/ops/register_all.h"
#include "ops/control/if.h"
#include "ops/control/loop.h"
#include "ops/control/scan.h"

namespace kiln::onnx_io {

namespace {

// Node inputs: the ONNX inputs, then every captured outlet of the body.
std::vector<Outlet> with_captures(NodeContext& ctx, const Subgraph& body) {
  std::vector<Outlet> inputs = ctx.inputs();
  inputs.insert(inputs.end(), body.captured_outlets.begin(), body.captured_outlets.end());
  return inputs;
}

void bind_outputs(NodeContext& ctx, Outlet first) {
  for (size_t i = 0; i < ctx.num_outputs(); i++)
    ctx.set_output(i, {first.node, static_cast<int>(i)});
}

}  // namespace

void register_control_flow_ops(OpRegistry& registry) {
  registry.add("If", [](NodeContext& ctx) {
    Subgraph then_g = ctx.attr_graph("then_branch");
    Subgraph else_g = ctx.attr_graph("else_branch");
    KILN_ENSURE(then_g.num_formal_inputs == 0 && else_g.num_formal_inputs == 0,
                "If branches must not declare inputs");
    std::vector<Outlet> inputs{ctx.input(0)};
    auto map_branch = [&](const Subgraph& g) {
      ops::IfBranch b{g.graph, {}};
      for (const Outlet& o : g.captured_outlets) {
        auto it = std::find(inputs.begin() + 1, inputs.end(), o);
        if (it == inputs.end()) {
          inputs.push_back(o);
          it = inputs.end() - 1;
        }
        b.input_map.push_back(static_cast<size_t>(it - inputs.begin()));
      }
      return b;
    };
    ops::IfBranch t = map_branch(then_g);
    ops::IfBranch e = map_branch(else_g);
    KILN_ENSURE(then_g.graph->outputs().size() >= ctx.num_outputs(),
                "If: node has {} outputs but the branches {}", ctx.num_outputs(),
                then_g.graph->outputs().size());
    auto op = std::make_shared<ops::If>(std::move(t), std::move(e));
    bind_outputs(ctx, ctx.add_node("", op, inputs, then_g.graph->outputs().size()));
  });
  registry.add("Loop", [](NodeContext& ctx) {
    Subgraph body = ctx.attr_graph("body");
    KILN_ENSURE(ctx.num_inputs() >= 2, "Loop needs inputs M and cond (possibly empty)");
    size_t carried = ctx.num_inputs() - 2;
    KILN_ENSURE(body.num_formal_inputs == carried + 2,
                "Loop body has {} inputs, expected {} (iteration, cond, {} carried)",
                body.num_formal_inputs, carried + 2, carried);
    auto op = std::make_shared<ops::Loop>(body.graph, carried);
    bind_outputs(ctx, ctx.add_node("", op, with_captures(ctx, body),
                                   std::max(ctx.num_outputs(), body.graph->outputs().size() - 1)));
  });
  registry.add("Scan", [](NodeContext& ctx) {
    Subgraph body = ctx.attr_graph("body");
    ops::ScanConfig c;
    c.num_scan_inputs = static_cast<size_t>(ctx.attr_int("num_scan_inputs"));
    c.batched = ctx.opset() < 9;
    size_t formal = ctx.num_inputs() - (c.batched ? 1 : 0);
    KILN_ENSURE(formal >= c.num_scan_inputs, "Scan has {} inputs for {} scan inputs", formal,
                c.num_scan_inputs);
    c.num_states = formal - c.num_scan_inputs;
    KILN_ENSURE(body.num_formal_inputs == formal, "Scan body has {} inputs, expected {}",
                body.num_formal_inputs, formal);
    if (c.batched) {
      c.input_directions = ctx.attr_ints("directions", std::vector<int64_t>{});
    } else {
      c.input_axes = ctx.attr_ints("scan_input_axes", std::vector<int64_t>{});
      c.input_directions = ctx.attr_ints("scan_input_directions", std::vector<int64_t>{});
      c.output_axes = ctx.attr_ints("scan_output_axes", std::vector<int64_t>{});
      c.output_directions = ctx.attr_ints("scan_output_directions", std::vector<int64_t>{});
    }
    auto op = std::make_shared<ops::Scan>(body.graph, std::move(c));
    bind_outputs(ctx, ctx.add_node("", op, with_captures(ctx, body),
                                   std::max(ctx.num_outputs(), body.graph->outputs().size())));
  });
}

}  // namespace kiln::onnx_io
