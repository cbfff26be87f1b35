// The two things `kiln compare` runs: each side is a model at a stage, with a thread count and
// kernel ISA, or a directory of reference values. A side produces a CapturedRun (every
// intermediate value, named); compare_values.h matches and compares two of them.
//
// Other ISAs run in a child process: active_isa() is decided once per process
// (KILN_ISA is read on first use, and optimize-stage weights are packed for that ISA), so a
// side whose ISA differs from this process's is `kiln run --save-values` started with
// KILN_ISA set, on the same inputs written as a bundle, its values read back from disk.
//
// A future kind of side (a pulsed run for `compare --stream`) only has to produce a
// CapturedRun whose values are keyed like the batch run's, the delay already skipped.
#pragma once

#include <string>
#include <vector>

#include "cli/model_setup.h"
#include "cli/value_capture.h"

namespace kiln::cli {

struct SideSpec {
  std::string label;      // "A" or "B"
  ModelOptions model;     // path empty: a reference directory instead
  std::string reference;  // --reference DIR
  std::string stage = "optimize";
  std::string isa;  // empty: this process's
  int threads = 0;  // 0: the default
};

// "model.onnx (optimize, avx512, 2 threads)".
std::string describe_side(const SideSpec& side);

// Runs (or reads) one side on `inputs` (one tensor per model input, by position).
CapturedRun run_side(const SideSpec& side, const std::vector<Tensor>& inputs);

}  // namespace kiln::cli
