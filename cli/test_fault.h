// Fault injection for testing the debugging tools: KILN_TEST_FAULT=NODE[@ISA] makes the node
// of that name (or value key, cli/value_capture.h) compute wrong outputs at the optimize stage
// -- a broken kernel, as far as anyone can tell from outside -- when the kernels' ISA is ISA
// (any ISA when not given). `kiln compare` must name exactly that node. Unset: no effect.
#pragma once

#include "core/graph.h"

namespace kiln::cli {

// Wraps the named node's op when KILN_TEST_FAULT asks for it; throws kiln::Error when the
// variable names no node of the graph. Called on graphs taken to the optimize stage.
void apply_test_fault(Graph& graph);

}  // namespace kiln::cli
