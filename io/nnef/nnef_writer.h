// Writing kiln Graphs as NNEF: graph.nnef (standard NNEF ops wherever NNEF has them, kiln's
// kiln_core_* extension fragments otherwise) and one .dat file per constant tensor. The output
// is deterministic: the same graph gives the same bytes.
#pragma once

#include <string>
#include <vector>

#include "core/graph.h"
#include "core/stream_session.h"
#include "io/nnef/archive.h"

namespace kiln::nnef {

struct WriteOptions {
  // Refuse graphs that need extension fragments (an error listing the ops).
  bool strict = false;
  // A pulsed model's stream description (passes::pulsify), written as kiln_stream.json
  // (io/nnef/stream_spec_file.h); null for ordinary models.
  const StreamSpec* stream = nullptr;
};

struct WrittenModel {
  FileMap files;                           // graph.nnef and the .dat files
  std::vector<std::string> extension_ops;  // kiln ops written as extension fragments, sorted
  std::vector<std::string> extensions;     // the extension lines of graph.nnef
};

// Translates an analysed graph (every outlet has a fact). Throws kiln::Error naming the nodes
// kiln cannot express, or, with options.strict, every op that needs an extension.
WrittenModel write_nnef(const Graph& graph, const WriteOptions& options = {});

// Writes the model to a directory or a .tgz/.tar archive (see write_container).
void save_nnef(const Graph& graph, const std::string& path, const WriteOptions& options = {});

}  // namespace kiln::nnef
