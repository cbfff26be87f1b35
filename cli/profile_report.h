// The per-node cost and time report shared by `kiln dump --cost/--profile` and `kiln profile`:
// rows per node (ms/i, %, FMA, GF/s, output shapes, op, name), the per-op-type summary, cost
// totals, memory, as text or JSON, and the Chrome trace of a profile.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/graph_cost.h"
#include "core/profiler.h"

namespace kiln::cli {

struct ReportRow {
  int node = -1;
  std::string name, op, output_shapes;
  NodeCost cost;
  std::optional<int64_t> fma;  // the FMA count when it evaluates to a number
  double ms = 0, percent = 0;  // when profiled
  double gflops = 0;           // 2 x FMA / time, when both are known
  std::string kernel;          // the op's "kernel" attribute (packed kernel ops), or empty
  bool reference = false;      // runs a reference eval codegen declined (Op::is_reference_impl)
  // A node inside a body of a top-level node (profiled only): the body's path ("12.0"), its
  // nesting depth (1, 2...) and its mean evaluations per run; `node` is its id in the body.
  std::string body;
  int top_node = -1;  // the top-level node whose body it is
  int depth = 0;
  double calls = 0;
};

struct OpTypeRow {
  std::string op;
  int nodes = 0;
  int64_t calls = 0;
  double ms = 0, percent = 0;
  int64_t fma = 0;
};

struct Report {
  std::string model, inputs, stage;
  std::string cpu, isa;  // where it ran (the CPU's name, kernels' ISA)
  int threads = 1;
  int reference_nodes = 0;  // rows with `reference` set
  bool profiled = false;
  int runs = 0;
  double total_ms = 0;           // mean whole-network time per run
  double median_ms = 0;          // median whole-network time per run
  double accounted_ms = 0;       // sum of the nodes' times
  std::vector<ReportRow> rows;   // each top-level node, followed by the nodes of its bodies
  std::vector<OpTypeRow> by_op;  // most time consuming first (or most FMA when not profiled)
  CostTotals totals;
  std::map<DatumType, std::optional<int64_t>> fma_values;  // totals evaluated
  std::vector<std::string> unknown_cost;                   // "id name (Op): why"
  int64_t weights_bytes = 0, peak_rss_bytes = 0;
  Dim activation_bytes = 0;                 // symbolic when output shapes are
  std::optional<MemoryStats> arena;         // the State's memory plan, when the model ran
  std::vector<PlannedValue> memory_layout;  // its values: arena offset, bytes, steps
  std::vector<int> order;                   // the plan's evaluation order (step -> node)
  std::vector<NodeEvent> timeline;          // one run's node events (the median run)
};

// Builds the report from the graph's costs and, when given, a profile of it. Symbols in costs
// are evaluated with `symbols` where bound.
Report build_report(const Graph& graph, const ProfileResult* profile, const SymbolValues& symbols);

// The node table: ms/i and % when profiled, FMA/other/params/output bytes when `cost`.
void print_node_table(const Report& report, bool cost);
// "Most time consuming operations", cost summary, entire network and accounted time, memory.
void print_summary(const Report& report);
// {"nodes":[{"name","op","ms","percent","fma","gflops","output_shapes",...}],"total_ms",
//  "total_fma","by_op":[...],"memory":{...},...}
nlohmann::json report_json(const Report& report);
// The events of the profiled run whose time is the median (for timelines); empty when none
// were recorded.
std::vector<NodeEvent> median_run_events(const ProfileResult& profile);
// Chrome trace event format: one complete ("ph":"X") event per node per run.
void write_trace(const std::string& path, const Graph& graph, const ProfileResult& profile);

// Peak resident set size of this process, in bytes.
int64_t peak_rss_bytes();

}  // namespace kiln::cli
