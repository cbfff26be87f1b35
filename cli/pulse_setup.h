// --pulse for the subcommands: a loaded model taken through declutter, pulsified, optimized and
// planned, ready for a StreamSession (docs/streaming.md).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "cli/model_setup.h"
#include "core/stream_session.h"
#include "passes/pulse/pulsify.h"

namespace kiln::cli {

struct PulsedSetup {
  passes::PulsedModel model;  // the pulsed graph at the stage asked for, its facts, its spec
  PlanPtr plan;               // set when the stage is optimize (or plan)
};

// `pulse`: "8" or "S=8". `optimize`: run the optimize stage on the pulsed graph and plan it.
PulsedSetup pulsify_model(Graph& loaded, const std::string& pulse, bool optimize = true);

// A pulsed NNEF model (written by `kiln convert --pulse`) taken through optimize and planned;
// `loaded` is the graph loaded from `model`. Throws when it holds no stream description.
PulsedSetup load_pulsed_model(std::shared_ptr<Graph> loaded, const ModelOptions& model);

// Whether `model` names a pulsed NNEF model (without loading its graph).
bool is_pulsed_model(const ModelOptions& model);

// The stream description of a pulsed NNEF model (written by `kiln convert --pulse`), when
// `model` names one; `loaded` is the graph loaded from it.
std::optional<StreamSpec> pulsed_model_spec(const ModelOptions& model, const Graph& loaded);

// A graph of sources only, standing for the whole-stream inputs of a pulsed graph (each streaming
// input's axis at its full length, the stream length input left out): what gather_inputs reads
// a pulsed model's --input-bundle / --input files against.
Graph whole_stream_inputs(const Graph& pulsed, const StreamSpec& spec);

// "delay 16 frames (output 'output', axis 2, 8 frames per pulse)" per output, for messages.
std::string describe_delays(const StreamSpec& spec, const std::vector<std::string>& names);

}  // namespace kiln::cli
