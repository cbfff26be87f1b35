#include "cli/pulse_setup.h"

#include <fmt/format.h>

#include "passes/pipeline.h"

namespace kiln::cli {

PulsedSetup pulsify_model(Graph& loaded, const std::string& pulse, bool optimize) {
  passes::run_to_stage(loaded, passes::Stage::Declutter);
  PulsedSetup s;
  s.model = passes::pulsify(loaded, passes::parse_pulse(pulse));
  if (optimize) {
    passes::optimize(*s.model.graph);
    s.plan = passes::plan(s.model.graph);
  }
  return s;
}

std::string describe_delays(const StreamSpec& spec, const std::vector<std::string>& names) {
  std::string text;
  for (size_t i = 0; i < spec.outputs.size(); i++) {
    const StreamPort& p = spec.outputs[i];
    if (!text.empty()) text += "; ";
    if (!p.streaming) {
      text += fmt::format("output '{}': not a stream", names.at(i));
      continue;
    }
    text += fmt::format("output '{}': delay {} frames (axis {}, {} frames per pulse, length {})",
                        names.at(i), p.delay, p.axis, p.pulse, p.full.to_string());
  }
  return text;
}

}  // namespace kiln::cli
