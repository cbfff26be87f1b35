// --pulse for the subcommands: a loaded model taken through declutter, pulsified, optimized and
// planned, ready for a StreamSession (docs/streaming.md).
#pragma once

#include <memory>
#include <string>

#include "core/stream_session.h"
#include "passes/pulse/pulsify.h"

namespace kiln::cli {

struct PulsedSetup {
  passes::PulsedModel model;  // the pulsed graph at the stage asked for, its facts, its spec
  PlanPtr plan;               // set when the stage is optimize (or plan)
};

// `pulse`: "8" or "S=8". `optimize`: run the optimize stage on the pulsed graph and plan it.
PulsedSetup pulsify_model(Graph& loaded, const std::string& pulse, bool optimize = true);

// "delay 16 frames (output 'output', axis 2, 8 frames per pulse)" per output, for messages.
std::string describe_delays(const StreamSpec& spec, const std::vector<std::string>& names);

}  // namespace kiln::cli
