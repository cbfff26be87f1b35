// Options and driver shared by `kiln profile` and `kiln dump --cost/--profile`.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

#include "cli/model_setup.h"
#include "cli/stage_options.h"
#include "core/profiler.h"

namespace kiln::cli {

struct CostProfileOptions {
  ModelOptions model;
  InputOptions inputs;
  StageOptions stage;
  ProfileLimits limits;
  int threads = 0;
  uint64_t seed = 0;
  bool cost = false;     // FMA / other / bytes columns
  bool profile = false;  // run and time every node
  bool summary = false;  // per-op summary, totals, memory after the table
  bool json = false;
  std::string trace;       // Chrome trace file, when profiling
  std::string html;        // self-contained HTML report, when profiling
  std::string stage_note;  // printed after "Stage: ..." (dump --profile says why this stage)
  // Giving only --runs lifts the time limit and giving only --max-time the run limit.
  CLI::Option* runs_option = nullptr;
  CLI::Option* max_time_option = nullptr;
};

// --threads, --warmup, --runs, --max-time, --seed.
void add_profile_limit_options(CLI::App* cmd, CostProfileOptions& options);
// Loads (and, with `profile`, runs) the model and prints the report.
int run_cost_profile(const CostProfileOptions& options);

}  // namespace kiln::cli
