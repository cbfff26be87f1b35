#include "passes/pulse/pulsify.h"

#include <algorithm>
#include <charconv>
#include <set>

#include "base/error.h"
#include "passes/pulse/pulsifier.h"

namespace kiln::passes {

std::string PulsedFact::to_string() const {
  if (!streaming) return "not streaming";
  return fmt::format("axis={} pulse={} delay={} full={}", axis, pulse, delay, full.to_string());
}

std::string stream_symbol(const Graph& graph, const std::string& symbol) {
  std::set<std::string> found;
  for (const Fact& f : input_facts(graph))
    for (const Dim& d : f.shape)
      for (const auto& s : d.symbols()) found.insert(s);
  if (!symbol.empty()) {
    KILN_ENSURE(found.count(symbol), "--pulse: no input fact uses the symbol '{}' (symbols: {})",
                symbol, fmt::join(found, ", "));
    return symbol;
  }
  KILN_ENSURE(
      !found.empty(),
      "--pulse: no input has a symbolic dim to stream along (give one: -i input:1,40,S,f32)");
  KILN_ENSURE(found.size() == 1,
              "--pulse: the inputs have several symbols ({}): say which one streams, e.g. --pulse "
              "{}=8",
              fmt::join(found, ", "), *found.begin());
  return *found.begin();
}

PulseOptions parse_pulse(const std::string& text) {
  PulseOptions o;
  std::string_view v = text;
  if (auto eq = v.find('='); eq != std::string_view::npos) {
    o.symbol = std::string(v.substr(0, eq));
    v = v.substr(eq + 1);
  }
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), o.pulse);
  KILN_ENSURE(ec == std::errc() && ptr == v.data() + v.size() && o.pulse > 0,
              "--pulse '{}': expected a positive frame count, e.g. --pulse 8 or --pulse S=8", text);
  return o;
}

PulsedModel pulsify(const Graph& graph, const PulseOptions& options) {
  KILN_ENSURE(options.pulse > 0, "pulse size must be positive, got {}", options.pulse);
  pulse::Pulsifier p(graph, stream_symbol(graph, options.symbol), options.pulse);
  return p.run();
}

namespace pulse {

Pulsifier::Pulsifier(const Graph& source, std::string symbol, int64_t pulse)
    : src_(source), uses_(source), symbol_(std::move(symbol)), pulse_(pulse) {
  dst_ = std::make_shared<Graph>();
}

std::string Pulsifier::op_label(const Node& n) const {
  return fmt::format("node '{}' ({})", n.name, n.op->name());
}

void Pulsifier::refuse(const Node& n, const std::string& why) const {
  fail("cannot pulsify {} along the stream axis of '{}': {}", op_label(n), symbol_, why);
}

int Pulsifier::stream_axis(const Fact& f, const Node& n) const {
  int axis = -1;
  for (size_t i = 0; i < f.rank(); i++) {
    auto syms = f.shape[i].symbols();
    if (std::find(syms.begin(), syms.end(), symbol_) == syms.end()) continue;
    if (axis >= 0)
      refuse(n, fmt::format("its value [{}] has the stream symbol on axes {} and {}",
                            dims_to_string(f.shape), axis, i));
    axis = static_cast<int>(i);
  }
  return axis;
}

const PulsedFact& Pulsifier::pfact(Outlet src) const {
  return facts_.at(src);
}
Outlet Pulsifier::mapped(Outlet src) const {
  if (!src.present()) return src;
  return wire_.at(src);
}

int Pulsifier::add(const std::string& name, OpPtr op, std::vector<Outlet> inputs, size_t outputs) {
  return dst_->add_node(name, std::move(op), std::move(inputs), outputs, true);
}

Outlet Pulsifier::delayed(Outlet pulsed, const PulsedFact& f, int64_t delay, int64_t overlap,
                          std::string_view name) {
  int64_t extra = delay - f.delay;
  KILN_ENSURE(extra >= 0, "internal: cannot advance a stream ({} -> {})", f.delay, delay);
  if (extra == 0 && overlap == 0) return pulsed;
  double init = f.delay < 0 ? f.pad_value : 0.0;
  auto key = std::make_tuple(pulsed.node, pulsed.slot, extra, overlap, init);
  if (auto it = delays_.find(key); it != delays_.end()) return it->second;
  std::string nm = name.empty() ? dst_->node(pulsed.node).name : std::string(name);
  nm += overlap ? fmt::format(".delay_{}_{}", extra, overlap) : fmt::format(".delay_{}", extra);
  int id = add(nm, std::make_shared<ops::PulseDelay>(f.axis, extra, overlap, init), {pulsed});
  PulsedFact out = f;
  out.delay = delay;
  out.pulse = f.pulse;
  pulsed_facts_[{id, 0}] = out;
  Outlet o{id, 0};
  delays_[key] = o;
  return o;
}

Outlet Pulsifier::length_input() {
  if (!length_.present()) {
    std::string name = "stream_length";
    while (src_.find_node(name) >= 0) name += "_";
    length_ = dst_->add_source(name, Fact(DatumType::I64, std::vector<Dim>{}));
    pulsed_facts_[length_] = {};
  }
  return length_;
}

void Pulsifier::record(const Node& n, int pulsed_node, int64_t delay) {
  const Node& pn = dst_->node(pulsed_node);
  for (size_t s = 0; s < n.outputs.size(); s++) {
    Outlet src{n.id, static_cast<int>(s)};
    Outlet dst{pulsed_node, static_cast<int>(s)};
    wire_[src] = dst;
    PulsedFact f;
    int axis = stream_axis(n.outputs[s], n);
    if (axis >= 0) {
      f.streaming = true;
      f.axis = static_cast<size_t>(axis);
      f.full = n.outputs[s].shape[f.axis];
      f.delay = delay;
      auto pd = pn.outputs.at(s).shape.at(f.axis).as_int();
      if (!pd) refuse(n, "its pulsed output has a symbolic length along the stream axis");
      f.pulse = *pd;
    }
    facts_[src] = f;
    pulsed_facts_[dst] = f;
  }
}

PulsedModel Pulsifier::run() {
  // Streaming inputs first, in order.
  for (size_t i = 0; i < src_.inputs().size(); i++) {
    const Node& n = src_.node(src_.inputs()[i].node);
    Fact f = n.outputs[0];
    int axis = stream_axis(f, n);
    PulsedFact pf;
    if (axis >= 0) {
      pf.streaming = true;
      pf.axis = static_cast<size_t>(axis);
      pf.full = f.shape[pf.axis];
      KILN_ENSURE(pf.full == Dim::symbol(symbol_),
                  "input '{}' has the stream axis {} of length {}: a streaming input's stream "
                  "axis must be the symbol itself",
                  n.name, axis, pf.full.to_string());
      pf.pulse = pulse_;
      f.shape[pf.axis] = Dim(pulse_);
    }
    Outlet o = dst_->add_source(n.name, f);
    wire_[{n.id, 0}] = o;
    facts_[{n.id, 0}] = pf;
    pulsed_facts_[o] = pf;
  }
  for (int id : src_.eval_order()) {
    const Node& n = src_.node(id);
    if (wire_.count({id, 0})) continue;  // a source
    if (n.inputs.empty() && n.outputs.size() == 1 && n.outputs[0].value) {
      Outlet o = dst_->add_const(n.name, *n.outputs[0].value);
      wire_[{id, 0}] = o;
      facts_[{id, 0}] = {};
      pulsed_facts_[o] = {};
      continue;
    }
    bool streaming = false;
    for (Outlet in : n.inputs)
      if (in.present() && pfact(in).streaming) streaming = true;
    if (!streaming) {
      for (const Fact& f : n.outputs)
        if (stream_axis(f, n) >= 0 || f.dims_value)
          for (const Dim& d : f.dims_value ? *f.dims_value : f.shape)
            for (const auto& s : d.symbols())
              if (s == symbol_)
                refuse(n,
                       "its output depends on the stream's whole length, which a stream "
                       "does not know in advance");
      std::vector<Outlet> ins;
      for (Outlet in : n.inputs) ins.push_back(mapped(in));
      record(n, add(n.name, n.op, ins, n.outputs.size()), 0);
      continue;
    }
    if (window(n) || pad(n) || slice(n) || recurrent(n)) continue;
    generic(n);
  }
  std::vector<Outlet> outs;
  PulsedModel m;
  m.spec.symbol = symbol_;
  m.spec.pulse = pulse_;
  for (size_t i = 0; i < src_.inputs().size(); i++) {
    const PulsedFact& f = pfact(src_.inputs()[i]);
    m.spec.inputs.push_back({f.streaming, f.axis, f.pulse, f.delay, f.full});
  }
  for (Outlet o : src_.outputs()) {
    const PulsedFact& f = pfact(o);
    Outlet d = mapped(o);
    int64_t delay = f.delay;
    if (f.streaming && f.delay < 0) {
      d = delayed(d, f, 0);
      delay = 0;
    }
    outs.push_back(d);
    m.spec.outputs.push_back({f.streaming, f.axis, f.pulse, delay, f.full});
  }
  dst_->set_outputs(outs, src_.output_names());
  if (length_.present()) m.spec.length_input = static_cast<int>(src_.inputs().size());
  m.facts.resize(dst_->size());
  for (const auto& [o, f] : pulsed_facts_)
    if (o.slot == 0) m.facts[static_cast<size_t>(o.node)] = f;
  m.graph = dst_;
  return m;
}

}  // namespace pulse
}  // namespace kiln::passes
