// The pulsification pass's working state (internal to passes/pulse/): the source graph, the
// pulsed graph being built, and per source outlet its pulsed outlet and fact. One translator
// per op family lives in its own file.
#pragma once

#include <map>
#include <string>
#include <tuple>

#include "ops/pulse/pulse_delay.h"
#include "passes/graph_util.h"
#include "passes/pulse/pulsify.h"

namespace kiln::passes::pulse {

class Pulsifier {
 public:
  Pulsifier(const Graph& source, std::string symbol, int64_t pulse);
  PulsedModel run();

  // Translators (each returns true when it handled the node).
  void generic(const Node& n);    // frame-local ops: per-frame or other axes
  bool window(const Node& n);     // Conv / pools along the stream axis
  bool pad(const Node& n);        // Pad along the stream axis
  bool slice(const Node& n);      // Slice along the stream axis
  bool recurrent(const Node& n);  // RNN / GRU / LSTM along the stream axis

  // Helpers.
  const Fact& src_fact(Outlet o) const { return src_.fact(o); }
  const PulsedFact& pfact(Outlet src) const;
  Outlet mapped(Outlet src) const;
  // The stream axis of a source-graph fact (the one dim using the symbol), -1 when none.
  int stream_axis(const Fact& f, const Node& n) const;
  // A pulsed outlet made to lag the stream by exactly `delay` (>= its current delay, >= 0)
  // frames: a PulseDelay when needed (shared between consumers).
  Outlet delayed(Outlet pulsed, const PulsedFact& f, int64_t delay, int64_t overlap = 0,
                 std::string_view name = {});
  // The pulsed graph's stream-length input (added on first use): an i64 scalar, < 0 while the
  // stream's end is unknown; PulsePad reads it.
  Outlet length_input();
  // Adds a node to the pulsed graph, computing its facts.
  int add(const std::string& name, OpPtr op, std::vector<Outlet> inputs, size_t outputs = 1);
  [[noreturn]] void refuse(const Node& n, const std::string& why) const;
  std::string op_label(const Node& n) const;
  // Records the pulsed facts of node n's outputs from the source facts (streaming outputs
  // keep `delay`; their pulse is read from the pulsed graph's facts).
  void record(const Node& n, int pulsed_node, int64_t delay);

  const Graph& src_;
  Uses uses_;
  std::string symbol_;
  int64_t pulse_;
  std::shared_ptr<Graph> dst_;
  std::map<Outlet, Outlet> wire_;
  std::map<Outlet, PulsedFact> facts_;         // by source outlet
  std::map<Outlet, PulsedFact> pulsed_facts_;  // by pulsed outlet
  std::map<std::tuple<int, int, int64_t, int64_t, double>, Outlet> delays_;
  Outlet length_;
};

}  // namespace kiln::passes::pulse
