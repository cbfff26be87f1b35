// loop-bodies: Loop and Scan bodies run optimized. Their input facts are only known per run
// (a carried value may change shape between iterations), so the body cannot be rewritten here
// as If branches are (if_branches.h): instead the op gets the optimize stage as its body
// optimizer, and a session runs, for input facts it meets a second time, a copy of the body
// analysed for them and taken through the pipeline (ops/control/subgraph_runner.h). Runs once,
// after the optimize stage's other passes.
#pragma once

#include "core/pass.h"

namespace kiln::passes {

class LoopBodies : public Pass {
 public:
  std::string name() const override { return "loop-bodies"; }
  size_t run(Graph& graph) override;
};

}  // namespace kiln::passes
