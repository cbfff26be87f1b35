// NNEF serializers of the streaming ops (ops/pulse): PulseDelay as tract's tract_pulse_delay
// (the same delay line: `delay` frames late, `overlap` frames of the past first) when its
// initial frames are zeros, kiln_pulse_delay with `init` otherwise; PulsePad as kiln_pulse_pad
// (tract's tract_pulse_pulse_pad has no stream-length input: kiln learns where the stream ends
// from the graph's `stream_length` input, so the fragment differs). See docs/nnef.md.
#include "io/nnef/serializer_util.h"
#include "ops/pulse/pulse_delay.h"
#include "ops/pulse/pulse_pad.h"

namespace kiln::nnef::ser {

namespace {

bool write_pulse_delay(Ctx& c, const Node& n) {
  const auto& op = op_as<ops::PulseDelay>(n);
  if (op.init() == 0) {
    c.use_extension("tract_registry tract_pulse", "PulseDelay");
    c.assign(n, 0,
             fmt::format("tract_pulse_delay({}, axis = {}, delay = {}, overlap = {})",
                         c.identifier(in(n, 0)), op.axis(), op.delay(), op.overlap()));
    return true;
  }
  c.use_extension("kiln_registry kiln_pulse", "PulseDelay");
  c.assign(n, 0,
           fmt::format("kiln_pulse_delay({}, axis = {}, delay = {}, overlap = {}, init = {})",
                       c.identifier(in(n, 0)), op.axis(), op.delay(), op.overlap(),
                       nnef_real(op.init())));
  return true;
}

bool write_pulse_pad(Ctx& c, const Node& n) {
  const auto& op = op_as<ops::PulsePad>(n);
  c.use_extension("kiln_registry kiln_pulse", "PulsePad");
  const std::string length = has_input(n, 1) ? c.identifier(in(n, 1)) : "[]";
  c.assign(n, 0,
           fmt::format("kiln_pulse_pad({}, stream_length = {}, axis = {}, before = {}, after = {}, "
                       "begin_input = {}, end_input = {}, symbol = {}, value = {})",
                       c.identifier(in(n, 0)), length, op.axis(), op.before(), op.after(),
                       op.begin_input(), nnef_string(op.end_input().to_string()),
                       nnef_string(op.symbol()), nnef_real(op.value())));
  return true;
}

}  // namespace

void register_pulse_serializers(std::map<std::string, Serializer>& s) {
  s["PulseDelay"] = write_pulse_delay;
  s["PulsePad"] = write_pulse_pad;
}

}  // namespace kiln::nnef::ser
