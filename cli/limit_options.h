// --max-memory and --timeout (kiln run, kiln bench): the resource limits of core/run_limits.h
// set from the command line.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <string>

#include "core/graph.h"

namespace kiln::cli {

struct LimitOptions {
  std::string max_memory;  // "512M", "2G", "1.5GiB", "100000" (bytes); empty: physical memory
  double timeout = 0;      // seconds from the start of the command; 0: none
};

void add_limit_options(CLI::App* app, LimitOptions& options);

// Sets the tensor memory budget and the run deadline (call first: the timeout counts from here).
void apply_limits(const LimitOptions& options);

// Refuses a loaded graph whose constant weights alone exceed --max-memory (before the passes
// pack them); returns the weights' bytes.
size_t check_weights_fit(const LimitOptions& options, const Graph& graph);
// Refuses a plan whose arena (laid out by the first run) plus the weights exceed --max-memory.
void check_plan_fits(const LimitOptions& options, size_t weights_bytes, size_t arena_bytes);

// "512M" -> 536870912: K/M/G/T (binary multiples, optional "iB"/"B"), or plain bytes.
size_t parse_memory_size(const std::string& text);

}  // namespace kiln::cli
