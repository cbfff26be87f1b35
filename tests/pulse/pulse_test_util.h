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

namespace kiln::testing {

// $KILN_MODELS_DIR, else ../shared/models next to the source tree or its worktree parent.
inline std::filesystem::path stream_models_dir() {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("KILN_MODELS_DIR")) return env;
  fs::path near = fs::path(KILN_SOURCE_DIR) / ".." / "shared" / "models";
  if (fs::exists(near)) return near;
  return fs::path(KILN_SOURCE_DIR) / ".." / ".." / "shared" / "models";
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
