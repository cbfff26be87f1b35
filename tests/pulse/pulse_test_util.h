// Helpers of the streaming tests: pulsify and optimize a graph, run a whole input through a
// StreamSession, the shared models' folder.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "core/state.h"
#include "core/stream_session.h"
#include "passes/pipeline.h"
#include "passes/pulse/pulsify.h"
#include "tests/cli/run_kiln.h"

namespace kiln::testing {

// The shared models (testing::shared_models_dir: $KILN_SHARED_MODELS or ../shared/models).
inline std::filesystem::path stream_models_dir() {
  return shared_models_dir();
}

struct Streamed {
  passes::PulsedModel model;
  PlanPtr plan;
};

// `graph` at the typed stage: declutters it, pulsifies, optimizes (or not) and plans.
inline Streamed stream_model(Graph& graph, const std::string& symbol, int64_t pulse,
                             bool optimize = true) {
  passes::declutter(graph);
  Streamed s;
  s.model = passes::pulsify(graph, {symbol, pulse});
  if (optimize) passes::optimize(*s.model.graph);
  s.plan = passes::plan(s.model.graph);
  return s;
}

}  // namespace kiln::testing
