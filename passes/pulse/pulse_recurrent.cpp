// Pulsification of RNN / GRU / LSTM along their sequence axis: a PulsedRecurrent carries the
// hidden (and cell) state from pulse to pulse and skips the warm-up frames that precede the
// stream start (its input's delay). Reverse and bidirectional recurrences need the stream's end
// first and are refused, as are the final states Y_h / Y_c (known only when the stream ends).
#include "base/error.h"
#include "ops/control/loop.h"
#include "ops/control/scan.h"
#include "ops/pulse/pulsed_recurrent.h"
#include "ops/recurrent/lstm.h"
#include "ops/recurrent/recurrent.h"
#include "passes/pulse/pulsifier.h"

namespace kiln::passes::pulse {

bool Pulsifier::recurrent(const Node& n) {
  const auto* op = dynamic_cast<const ops::RecurrentOp*>(n.op.get());
  if (dynamic_cast<const ops::Scan*>(n.op.get()) || dynamic_cast<const ops::Loop*>(n.op.get()))
    refuse(n, fmt::format("{} bodies are not pulsified yet", n.op->name()));
  if (!op) return false;
  const PulsedFact& in = pfact(n.inputs[0]);
  for (size_t i = 1; i < n.inputs.size(); i++)
    if (n.inputs[i].present() && pfact(n.inputs[i]).streaming)
      refuse(n,
             fmt::format("its input {} (weights, sequence lengths or initial state) streams", i));
  if (!in.streaming) return false;
  const auto& cfg = op->config();
  const size_t seq_axis = cfg.layout ? 1 : 0;
  if (in.axis != seq_axis)
    refuse(n, fmt::format("the stream axis {} is not its sequence axis {}", in.axis, seq_axis));
  if (cfg.direction != ops::RnnDirection::Forward)
    refuse(n, fmt::format("a {} recurrence along the stream axis {} needs the stream's end first",
                          cfg.direction == ops::RnnDirection::Reverse ? "reverse" : "bidirectional",
                          in.axis));
  if (cfg.layout != 0) refuse(n, "layout=1 (batch first) recurrences are not pulsified yet");
  if (n.inputs.size() > 4 && n.inputs[4].present())
    refuse(n, "sequence_lens along the stream axis");
  const size_t states = dynamic_cast<const ops::Lstm*>(n.op.get()) ? 2 : 1;
  for (size_t s = 1; s < n.outputs.size(); s++)
    if (uses_.used({n.id, static_cast<int>(s)}))
      refuse(n, fmt::format("its final state (output {}) is known only at the stream's end", s));
  Outlet cur = mapped(n.inputs[0]);
  PulsedFact f = in;
  if (f.delay < 0) {
    cur = delayed(cur, f, 0);
    f.delay = 0;
  }
  std::vector<Outlet> ins{cur};
  for (size_t i = 1; i < n.inputs.size(); i++) ins.push_back(mapped(n.inputs[i]));
  int id =
      add(n.name, std::make_shared<ops::PulsedRecurrent>(n.op, states, f.delay), ins, 1 + states);
  // Only Y streams; the state outputs are per-pulse values nobody reads.
  const Node& pn = dst_->node(id);
  wire_[{n.id, 0}] = {id, 0};
  PulsedFact y = f;
  y.full = n.outputs[0].shape.at(0);
  y.pulse = pn.outputs[0].shape.at(0).to_int();
  facts_[{n.id, 0}] = y;
  pulsed_facts_[{id, 0}] = y;
  for (size_t s = 1; s < n.outputs.size(); s++) {
    wire_[{n.id, static_cast<int>(s)}] = {id, static_cast<int>(s)};
    facts_[{n.id, static_cast<int>(s)}] = {};
  }
  return true;
}

}  // namespace kiln::passes::pulse
