// `kiln compare --stream P`: side B is the pulsed model run pulse by pulse on the same whole
// inputs. Every value of a pulsed node that keeps its batch node's name is put back together
// along its stream axis -- each pulse's frames at their stream position (pulse k of a value with
// delay d holds frames k*P' - d ... of the whole value), the delay skipped, trimmed to the whole
// length -- so compare_values matches it with side A's batch value of the same key.
//
// The pulsed graph runs at the declutter stage (reference kernels): there every node still has
// the pulsed fact pulsify gave it (axis, frames per pulse, delay). Kernel-level differences are
// what --isa-b / --stage-b compare; --stream isolates the pulsification.
#pragma once

#include <string>
#include <vector>

#include "cli/compare_sides.h"

namespace kiln::cli {

// `pulse`: "8" or "S=8". `inputs`: the whole inputs, one per model input.
CapturedRun run_stream_side(const SideSpec& side, const std::string& pulse,
                            const std::vector<Tensor>& inputs);

}  // namespace kiln::cli
