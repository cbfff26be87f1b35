// The stage pipeline, one callable step per arrow:
//   load (the file's ops and facts, -i overrides) -> typed (analysed: every outlet has a fact)
//   -> declutter (canonical ops, clutter removed) -> optimize (kernel-ready ops, Op::codegen)
//   -> plan (evaluation order).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/pass.h"
#include "core/state.h"

namespace kiln::passes {

enum class Stage { Load, Typed, Declutter, Optimize, Plan };

// "load", "typed", "declutter", "optimize", "plan"; throws naming the valid stages.
Stage parse_stage(std::string_view text);
std::string stage_name(Stage stage);

// The passes of each stage, in order (`without`: leave out the pass of that name, to show what
// it does).
PassManager declutter_passes(std::string_view without = {});
// `codegen`: end with the codegen pass (its output depends on the CPU: tests comparing graph
// text leave it out).
PassManager optimize_passes(bool codegen = true);

// load -> typed: analyses the graph (facts for every outlet, constants folded into facts).
void to_typed(Graph& graph);
// typed -> declutter and declutter -> optimize.
PassReport declutter(Graph& graph);
PassReport optimize(Graph& graph);
// Takes a graph at the load stage to `stage` (plan: optimized; make the Plan with plan()).
PassReport run_to_stage(Graph& graph, Stage stage);
// optimize -> plan.
PlanPtr plan(GraphPtr graph);

// Model inputs declared constant (a fact with a value, `-i sr:i64=16000`) must be fed that value:
// throws naming the input otherwise.
void check_constant_inputs(const Graph& graph, const std::vector<Tensor>& inputs);

}  // namespace kiln::passes
