// Loading NNEF models into kiln Graphs: a directory, .tar or .tgz holding graph.nnef, .dat
// tensors and optionally graph.quant. Compound fragments are expanded; the standard NNEF ops,
// tract's tract_core_* fragments and kiln's kiln_core_* fragments become kiln ops.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "core/graph.h"
#include "core/stream_session.h"
#include "io/nnef/archive.h"

namespace kiln::nnef {

// Loads the model at `path` (directory or archive). Errors name the path and, for text errors,
// the line and column.
std::shared_ptr<Graph> load_nnef(const std::string& path);
// Builds the graph from files already in memory (graph.nnef plus its tensors).
std::shared_ptr<Graph> load_nnef_files(const FileMap& files, const std::string& source = "model");

// The stream description of a pulsed model's container (written by `kiln convert --pulse`),
// checked against the loaded `graph`; nullopt for an ordinary model.
std::optional<StreamSpec> load_nnef_stream_spec(const std::string& path, const Graph& graph);
// Whether the container at `path` holds a stream description (a pulsed model).
bool has_nnef_stream_spec(const std::string& path);

}  // namespace kiln::nnef
