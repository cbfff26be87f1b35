// Pulsification: translates a decluttered model typed over a symbolic stream axis (a symbol S
// in its input facts) into a streaming model that consumes P frames of each streaming input per
// call and produces the whole-input model's outputs, each delayed by a fixed number of frames
// (docs/streaming.md). Runs between declutter and optimize.
#pragma once

#include <string>
#include <vector>

#include "core/graph.h"
#include "core/stream_session.h"

namespace kiln::passes {

struct PulseOptions {
  std::string symbol;  // the streaming symbol; empty: the only symbol of the input facts
  int64_t pulse = 0;   // P: frames of each streaming input per call
};

// Per value of the pulsed graph: how it streams.
struct PulsedFact {
  bool streaming = false;
  size_t axis = 0;
  int64_t pulse = 0;     // frames per call along `axis`
  int64_t delay = 0;     // frames by which the value lags the stream (may be < 0 right after a
                         // left pad: the delay line that follows supplies the padding)
  Dim full;              // full length of the whole-input value along the axis (symbolic)
  double pad_value = 0;  // when delay < 0: the value of the frames not emitted
  std::string to_string() const;
};

struct PulsedModel {
  std::shared_ptr<Graph> graph;   // the pulsed graph (declutter stage: optimize it next)
  std::vector<PulsedFact> facts;  // per node of `graph`, slot 0
  StreamSpec spec;                // inputs, outputs, delays
};

// The symbol to stream along: `symbol` when given (must appear in an input fact), else the only
// symbol of the input facts (an error lists them when there are several).
std::string stream_symbol(const Graph& graph, const std::string& symbol);

// Parses "--pulse 8" or "--pulse S=8" into options.
PulseOptions parse_pulse(const std::string& text);

// Pulsifies a typed, decluttered graph. Errors name the node, the op and the axis.
PulsedModel pulsify(const Graph& graph, const PulseOptions& options);

}  // namespace kiln::passes
