// NNEF primitives of the streaming ops: tract_pulse_delay and kiln_pulse_delay (PulseDelay),
// kiln_pulse_pad (PulsePad). See io/nnef/pulse_serializers.cpp for the correspondence.
#include "io/nnef/primitive_util.h"
#include "ops/pulse/pulse_delay.h"
#include "ops/pulse/pulse_pad.h"

namespace kiln::nnef::prim {

namespace {

// Frame counts of a streaming op: bounded, so a hostile file cannot ask for a huge delay line.
int64_t frames(const Args& a, const std::string& name) {
  const int64_t v = a.integer(name);
  KILN_ENSURE(v >= 0 && v <= (int64_t{1} << 24), "{}: {} = {} out of range [0, 2^24]", a.op(), name,
              v);
  return v;
}

size_t stream_axis(Builder& b, const Args& a, Outlet input) {
  const int64_t axis = a.integer("axis");
  const size_t rank = b.fact(input).shape.size();
  KILN_ENSURE(axis >= 0 && static_cast<size_t>(axis) < rank,
              "{}: axis {} out of range for an input of rank {}", a.op(), axis, rank);
  return static_cast<size_t>(axis);
}

V delay(Builder& b, const Args& a, bool with_init) {
  Outlet x = a.tensor(b, "input");
  const size_t axis = stream_axis(b, a, x);
  return one(b.add(std::make_shared<ops::PulseDelay>(axis, frames(a, "delay"), frames(a, "overlap"),
                                                     with_init ? a.real("init") : 0.0),
                   {x}));
}

V pulse_pad(Builder& b, const Args& a) {
  Outlet x = a.tensor(b, "input");
  const size_t axis = stream_axis(b, a, x);
  std::vector<Outlet> inputs{x};
  const Value& length = a.get("stream_length");
  if (!(length.kind == Value::Kind::Array && length.items.empty()))
    inputs.push_back(a.tensor(b, "stream_length"));
  const std::string symbol = a.string("symbol");
  KILN_ENSURE(!symbol.empty(), "kiln_pulse_pad: empty stream symbol");
  Dim end_input = Dim::parse(a.string("end_input"));
  for (const auto& s : end_input.symbols())
    KILN_ENSURE(s == symbol, "kiln_pulse_pad: end_input '{}' uses '{}', not the stream symbol '{}'",
                end_input.to_string(), s, symbol);
  return one(b.add(
      std::make_shared<ops::PulsePad>(axis, frames(a, "before"), frames(a, "after"),
                                      frames(a, "begin_input"), end_input, symbol, a.real("value")),
      inputs));
}

}  // namespace

void register_pulse_primitives(std::map<std::string, Primitive>& p) {
  p["tract_pulse_delay"] = [](Builder& b, const Args& a) { return delay(b, a, false); };
  p["kiln_pulse_delay"] = [](Builder& b, const Args& a) { return delay(b, a, true); };
  p["kiln_pulse_pad"] = pulse_pad;
}

}  // namespace kiln::nnef::prim
