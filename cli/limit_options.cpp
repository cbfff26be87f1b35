#include "cli/limit_options.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cctype>
#include <cmath>

#include "base/error.h"
#include "core/run_limits.h"

namespace kiln::cli {

namespace {

size_t physical_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) : 0;
}

size_t budget_of(const LimitOptions& o) {
  return o.max_memory.empty() ? physical_memory() : parse_memory_size(o.max_memory);
}

std::string mib(size_t bytes) {
  return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
}

size_t constant_bytes(const Graph& graph) {
  size_t total = 0;
  for (const auto& n : graph.nodes())
    for (const Fact& f : n.outputs)
      if (f.value && n.inputs.empty()) total += f.value->nbytes();
  return total;
}

}  // namespace

size_t parse_memory_size(const std::string& text) {
  std::string t;
  for (char c : text)
    if (c != ' ') t += c;
  size_t used = 0;
  double value = -1;
  try {
    value = std::stod(t, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  std::string unit = t.substr(used);
  for (auto& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (unit.size() > 1 && unit.back() == 'B') unit.pop_back();  // "MB", "MiB" -> "M", "MI"
  if (!unit.empty() && unit.back() == 'I') unit.pop_back();
  double scale = 0;
  if (unit.empty() || unit == "B") scale = 1;
  if (unit == "K") scale = 1024.0;
  if (unit == "M") scale = 1024.0 * 1024.0;
  if (unit == "G") scale = 1024.0 * 1024.0 * 1024.0;
  if (unit == "T") scale = 1024.0 * 1024.0 * 1024.0 * 1024.0;
  KILN_ENSURE(
      used > 0 && scale > 0 && std::isfinite(value) && value * scale >= 1 && value * scale < 9.2e18,
      "--max-memory {}: expected a size such as 512M, 2G or 1.5GiB", text);
  return static_cast<size_t>(value * scale);
}

void add_limit_options(CLI::App* app, LimitOptions& options) {
  app->add_option(
         "--max-memory", options.max_memory,
         "Memory the command may use (weights + arena + every live tensor + kernel scratch), "
         "e.g. 512M, 2G; past it: a 'too large' error (default: the physical memory)")
      ->check(
          [](const std::string& text) -> std::string {
            try {
              parse_memory_size(text);
              return "";
            } catch (const Error& e) {
              return e.message();
            }
          },
          "SIZE");
  app->add_option("--timeout", options.timeout,
                  "Seconds the command may take; past them the run stops with an error "
                  "(checked between nodes and per Loop/Scan iteration)")
      ->check(CLI::NonNegativeNumber);
}

void apply_limits(const LimitOptions& options) {
  set_memory_budget(budget_of(options));
  set_run_timeout(options.timeout);
}

size_t check_weights_fit(const LimitOptions& options, const Graph& graph) {
  const size_t weights = constant_bytes(graph);
  if (options.max_memory.empty()) return weights;
  const size_t budget = budget_of(options);
  KILN_ENSURE(weights <= budget, "the model is too large: its weights take {}, --max-memory is {}",
              mib(weights), mib(budget));
  return weights;
}

void check_plan_fits(const LimitOptions& options, size_t weights, size_t arena_bytes) {
  if (options.max_memory.empty()) return;
  const size_t budget = budget_of(options);
  KILN_ENSURE(weights + arena_bytes <= budget,
              "the model is too large: weights {} + arena {} exceed --max-memory {}", mib(weights),
              mib(arena_bytes), mib(budget));
}

}  // namespace kiln::cli
