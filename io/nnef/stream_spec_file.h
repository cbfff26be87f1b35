// The stream description of a pulsed model inside an NNEF container (docs/streaming.md): which
// inputs and outputs stream, along which axis, the pulse, each output's delay and the whole
// length in the stream symbol. Written as `kiln_stream.json` next to graph.nnef by
// `kiln convert --pulse`; a container holding it loads as a streaming model.
#pragma once

#include <optional>
#include <string>

#include "core/stream_session.h"
#include "io/nnef/archive.h"

namespace kiln::nnef {

inline constexpr const char* kStreamSpecFile = "kiln_stream.json";

// Deterministic JSON (sorted keys, two-space indent, trailing newline).
std::string stream_spec_to_json(const StreamSpec& spec);
// Parses and checks it against a graph of `num_inputs` inputs and `num_outputs` outputs; throws
// kiln::Error naming `source` on anything malformed or inconsistent.
StreamSpec stream_spec_from_json(const std::string& text, size_t num_inputs, size_t num_outputs,
                                 const std::string& source);
// The stream description of a loaded container, if it has one.
std::optional<StreamSpec> stream_spec_of(const FileMap& files, size_t num_inputs,
                                         size_t num_outputs, const std::string& source);

}  // namespace kiln::nnef
