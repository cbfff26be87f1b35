#include "cli/compare_stream.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "base/error.h"
#include "base/threading.h"
#include "cli/pulse_setup.h"
#include "cli/test_fault.h"
#include "core/source_ops.h"
#include "core/stream_session.h"
#include "passes/pipeline.h"

namespace kiln::cli {

namespace {

// One value of the pulsed graph being put back together.
struct Gathered {
  int node;
  passes::PulsedFact fact;
  int64_t length = 0;  // whole frames along the axis
  Tensor whole;
};

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

}  // namespace

CapturedRun run_stream_side(const SideSpec& side, const std::string& pulse,
                            const std::vector<Tensor>& inputs) {
  auto loaded = load_model_with_facts(side.model);
  PulsedSetup s = pulsify_model(*loaded, pulse, false);
  // KILN_TEST_FAULT breaks a pulsed node here (A, at the declutter stage, is left alone).
  apply_test_fault(*s.model.graph);
  const Graph& g = *s.model.graph;
  const StreamSpec& spec = s.model.spec;
  StreamSession stream(passes::plan(s.model.graph), spec, {side.threads});
  const int64_t length = stream.whole_length(inputs);
  const SymbolValues symbols{{spec.symbol, length}};

  // The values to gather: computed nodes' first outputs whose stream position is defined (a
  // negative delay only occurs on the pulse-only padding nodes, which A does not have).
  std::vector<Gathered> gathered;
  std::map<int, size_t> by_node;
  std::map<int, Tensor> constant_per_pulse;  // computed values that do not stream: first pulse
  int64_t pulses = std::max<int64_t>(1, ceil_div(length, spec.pulse));
  for (const Node& n : g.nodes()) {
    if (dynamic_cast<const SourceOp*>(n.op.get()) || dynamic_cast<const ConstOp*>(n.op.get()))
      continue;
    const passes::PulsedFact& f = s.model.facts.at(static_cast<size_t>(n.id));
    if (!f.streaming) {
      constant_per_pulse[n.id] = Tensor();
      continue;
    }
    if (f.delay < 0) continue;
    Gathered v{n.id, f, f.full.eval(symbols), Tensor()};
    if (v.length < 0) continue;
    pulses = std::max(pulses, ceil_div(v.length + f.delay, f.pulse));
    by_node[n.id] = gathered.size();
    gathered.push_back(std::move(v));
  }

  stream.set_stream_length(length);
  stream.reset();
  std::vector<Tensor> pulse_in = stream.pulse_buffers(inputs), outs;
  int64_t k = 0;
  NodeTimer timer = [&](int id, std::chrono::nanoseconds) {
    const std::vector<Tensor>& values = stream.session().state().node_values(id);
    if (values.empty() || values[0].is_null()) return;
    auto c = constant_per_pulse.find(id);
    if (c != constant_per_pulse.end()) {
      if (c->second.is_null()) c->second = values[0].clone();
      return;
    }
    auto it = by_node.find(id);
    if (it == by_node.end()) return;
    Gathered& v = gathered[it->second];
    const Tensor& part = values[0];
    if (v.whole.is_null()) {
      Shape shape = part.shape();
      shape.at(v.fact.axis) = v.length;
      v.whole = Tensor(part.dtype(), shape);
    }
    // Pulse k holds the whole value's frames [k * pulse - delay, (k + 1) * pulse - delay).
    const int64_t first = k * v.fact.pulse - v.fact.delay;
    const int64_t skip = std::max<int64_t>(0, -first);
    copy_frames(part, skip, v.whole, first + skip, v.fact.pulse - skip, v.fact.axis);
  };
  for (k = 0; k < pulses; k++) {
    stream.cut_pulse(inputs, k, pulse_in);
    stream.push_timed(pulse_in, outs, timer);
  }

  CapturedRun run;
  run.description =
      fmt::format("{} pulsed ({} frames of {} per call, declutter stage, {} pulses, {} threads)",
                  side.model.path, spec.pulse, spec.symbol, pulses,
                  side.threads > 0 ? side.threads : num_threads());
  std::map<Outlet, std::string> output_names;
  for (size_t i = 0; i < g.outputs().size(); i++)
    output_names.emplace(g.outputs()[i], g.output_names()[i]);
  auto add = [&](int id, Tensor value) {
    const Node& n = g.node(id);
    CapturedValue v;
    v.node = id;
    v.key = value_key(n.name, 0);
    v.node_name = n.name;
    v.op = n.op->name();
    auto out = output_names.find(Outlet{id, 0});
    if (out != output_names.end()) v.output_alias = "output:" + value_key(out->second, 0);
    v.value = std::move(value);
    run.values.push_back(std::move(v));
  };
  for (const Node& n : g.nodes()) {
    if (auto it = by_node.find(n.id); it != by_node.end())
      add(n.id, std::move(gathered[it->second].whole));
    else if (auto c = constant_per_pulse.find(n.id); c != constant_per_pulse.end())
      add(n.id, std::move(c->second));
  }
  for (const Outlet& o : g.outputs()) {
    int i = -1;
    for (size_t j = 0; j < run.values.size(); j++)
      if (run.values[j].node == o.node && o.slot == 0) i = static_cast<int>(j);
    KILN_ENSURE(i >= 0, "--stream: output '{}' is not a first output of its node",
                g.node(o.node).name);
    run.outputs.push_back(run.values[static_cast<size_t>(i)].value);
  }
  run.index();
  return run;
}

}  // namespace kiln::cli
