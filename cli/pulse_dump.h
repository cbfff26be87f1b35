// `kiln dump --pulse`: the pulsed graph with each value's pulsed fact (stream axis, pulse,
// delay), the output delays, and with --cost the arithmetic per pulse against the whole-input
// model and the streaming state's size.
#pragma once

#include <string>

#include "cli/model_setup.h"
#include "cli/stage_options.h"

namespace kiln::cli {

struct PulseDumpOptions {
  ModelOptions model;
  StageOptions stage;  // optimize (-O): the optimized pulsed graph; otherwise before optimize
  std::string pulse;
  bool json = false;
  bool cost = false;
};

int dump_pulsed(const PulseDumpOptions& o);

}  // namespace kiln::cli
