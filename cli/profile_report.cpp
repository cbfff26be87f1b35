#include "cli/profile_report.h"

#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <fstream>
#include <functional>

#include "base/error.h"
#include "core/timing_stats.h"

namespace kiln::cli {

namespace {

std::optional<int64_t> evaluate(const Dim& d, const SymbolValues& symbols) {
  Dim bound = d.substitute(symbols);
  return bound.as_int();
}

std::string shapes_text(const Node& n) {
  std::string out;
  for (const auto& f : n.outputs) out += (out.empty() ? "" : " ") + f.to_string();
  return out;
}

// Int8 products (ops/quant's packed ops) are counted apart as MAC(i8): i8 x i8 -> i32.
std::string fma_type_text(DatumType dt) {
  if (dt == DatumType::I8 || dt == DatumType::U8) return "MAC(i8)";
  return fmt::format("FMA({})", name_of(dt));
}

// "FMA(f32) 10838016", "1536*S", "other 12544", "-" or "COST UNKNOWN".
std::string cost_text(const ReportRow& r) {
  const Cost& c = r.cost.cost;
  if (!c.known) return "COST UNKNOWN";
  std::string out;
  if (c.fma != Dim(0))
    out = fmt::format("{} {}", fma_type_text(c.fma_type),
                      r.fma ? std::to_string(*r.fma) : c.fma.to_string());
  if (c.other != Dim(0))
    out += fmt::format("{}other {}", out.empty() ? "" : " + ", c.other.to_string());
  return out.empty() ? "-" : out;
}

std::string bytes_text(int64_t bytes) {
  if (bytes >= (int64_t{1} << 20)) return fmt::format("{:.2f} MiB", bytes / 1048576.0);
  if (bytes >= 1024) return fmt::format("{:.1f} KiB", bytes / 1024.0);
  return fmt::format("{} B", bytes);
}

nlohmann::json dim_json(const Dim& d, const SymbolValues& symbols) {
  if (auto v = evaluate(d, symbols)) return *v;
  return d.substitute(symbols).to_string();
}

// The body rows of top-level node `top`, each followed by the rows of its own nested bodies; rows
// whose parent cannot be found (a body replaced by its optimized form between runs) come last.
std::vector<const BodyNodeProfile*> body_rows_of(const ProfileResult& profile, int top) {
  std::vector<const BodyNodeProfile*> mine, out;
  for (const auto& b : profile.body_nodes)
    if (b.top_node == top) mine.push_back(&b);
  std::vector<bool> done(mine.size(), false);
  std::function<void(const std::string&)> emit_body = [&](const std::string& path) {
    for (size_t i = 0; i < mine.size(); i++) {
      if (done[i] || mine[i]->path != path) continue;
      done[i] = true;
      out.push_back(mine[i]);
      const std::string nested = path + "/" + std::to_string(mine[i]->node) + ".";
      std::vector<std::string> paths;
      for (const auto* b : mine)
        if (b->path.rfind(nested, 0) == 0 &&
            b->path.find('/', nested.size()) == std::string::npos &&
            std::find(paths.begin(), paths.end(), b->path) == paths.end())
          paths.push_back(b->path);
      std::sort(paths.begin(), paths.end());
      for (const auto& p : paths) emit_body(p);
    }
  };
  std::vector<std::string> tops;
  for (const auto* b : mine)
    if (b->depth == 1 && std::find(tops.begin(), tops.end(), b->path) == tops.end())
      tops.push_back(b->path);
  std::sort(tops.begin(), tops.end());
  for (const auto& p : tops) emit_body(p);
  for (size_t i = 0; i < mine.size(); i++)
    if (!done[i]) out.push_back(mine[i]);
  return out;
}

}  // namespace

int64_t peak_rss_bytes() {
  struct rusage usage {};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

Report build_report(const Graph& graph, const ProfileResult* profile, const SymbolValues& symbols) {
  Report report;
  auto costs = node_costs(graph);
  report.totals = sum_costs(costs);
  for (const auto& [dt, n] : report.totals.fma) report.fma_values[dt] = evaluate(n, symbols);
  if (profile) {
    report.profiled = true;
    report.runs = profile->runs;
    report.total_ms = profile->mean_run_ms();
    report.median_ms = timing_stats(profile->run_ms).median;
    report.accounted_ms = profile->nodes_total_ms();
  }
  std::map<std::string, OpTypeRow> by_op;
  for (auto& nc : costs) {
    const Node& n = graph.node(nc.node);
    ReportRow row;
    row.node = nc.node;
    row.name = n.name;
    row.op = n.op->name();
    row.output_shapes = shapes_text(n);
    row.cost = nc;
    for (const auto& [key, value] : n.op->attributes())
      if (key == "kernel") row.kernel = value;
    row.reference = n.op->is_reference_impl();
    if (row.reference) report.reference_nodes++;
    if (nc.cost.known) row.fma = evaluate(nc.cost.fma, symbols);
    if (!nc.cost.known)
      report.unknown_cost.push_back(graph.describe(nc.node) +
                                    (nc.error.empty() ? ": no cost model" : ": " + nc.error));
    if (profile) {
      row.ms = profile->node_ms.at(static_cast<size_t>(nc.node));
      row.percent = report.total_ms > 0 ? row.ms / report.total_ms * 100 : 0;
      if (row.fma && *row.fma > 0 && row.ms > 0) row.gflops = 2.0 * *row.fma / (row.ms * 1e6);
    }
    auto& t = by_op[row.op];
    t.op = row.op;
    t.nodes++;
    t.calls += profile ? profile->runs : 1;
    t.ms += row.ms;
    t.percent += row.percent;
    if (row.fma) t.fma += *row.fma;
    report.activation_bytes += nc.output_bytes.substitute(symbols);
    report.rows.push_back(std::move(row));
    if (!profile) continue;
    for (const BodyNodeProfile* b : body_rows_of(*profile, nc.node)) {
      ReportRow br;
      br.node = b->node;
      br.name = b->name;
      br.op = b->op;
      br.body = b->path;
      br.top_node = b->top_node;
      br.depth = b->depth;
      br.calls = b->calls;
      br.ms = b->ms;
      br.percent = report.total_ms > 0 ? b->ms / report.total_ms * 100 : 0;
      report.rows.push_back(std::move(br));
    }
  }
  for (auto& [name, t] : by_op) report.by_op.push_back(t);
  std::stable_sort(report.by_op.begin(), report.by_op.end(),
                   [&](const OpTypeRow& a, const OpTypeRow& b) {
                     return report.profiled ? a.ms > b.ms : a.fma > b.fma;
                   });
  report.weights_bytes = weights_bytes(graph);
  report.peak_rss_bytes = peak_rss_bytes();
  return report;
}

void print_node_table(const Report& report, bool cost) {
  if (report.profiled)
    fmt::print("Per node, mean of {} runs (% of the whole network; GF/s = 2 x FMA / time):\n",
               report.runs);
  else if (cost)
    fmt::print(
        "Per node cost (symbolic where shapes are; params: constant bytes read; out: output "
        "bytes):\n");
  for (const auto& r : report.rows) {
    std::string line;
    if (report.profiled) line += fmt::format("{:>9.3f} ms/i {:>5.1f}%  ", r.ms, r.percent);
    if (!r.body.empty()) {
      // A node inside a body: indented under its top-level node, no cost columns.
      if (cost) line += std::string(report.profiled ? 48 : 33, ' ');
      line += fmt::format("{}> {} {} {} (body {}, {:.4g} calls/run, {:.4f} ms/call)",
                          std::string(5 + 2 * static_cast<size_t>(r.depth - 1), ' '), r.node, r.op,
                          r.name, r.body, r.calls, r.calls > 0 ? r.ms / r.calls : 0.0);
      fmt::print("{}\n", line);
      continue;
    }
    if (cost) {
      line += fmt::format("{:<32} ", cost_text(r));
      if (report.profiled)
        line += r.gflops > 0 ? fmt::format("{:>8.3f} GF/s  ", r.gflops) : std::string(15, ' ');
      else
        line += fmt::format("params {:>10}  out {:>10}  ",
                            r.cost.cost.params_bytes.is_int()
                                ? bytes_text(r.cost.cost.params_bytes.to_int())
                                : r.cost.cost.params_bytes.to_string() + " B",
                            r.cost.output_bytes.is_int() ? bytes_text(r.cost.output_bytes.to_int())
                                                         : r.cost.output_bytes.to_string() + " B");
    }
    line += fmt::format("{:>4} {} {} -> {}{}", r.node, r.op, r.name, r.output_shapes,
                        r.reference ? "  [reference]" : "");
    fmt::print("{}\n", line);
  }
}

void print_summary(const Report& report) {
  if (report.profiled) {
    fmt::print("\nMost time consuming operations:\n");
    fmt::print("  {:<22} {:>6} {:>8} {:>12} {:>7} {:>16}\n", "op", "nodes", "calls", "ms/i", "%",
               "FMA");
    for (const auto& t : report.by_op)
      fmt::print("  {:<22} {:>6} {:>8} {:>12.3f} {:>6.1f}% {:>16}\n", t.op, t.nodes, t.calls, t.ms,
                 t.percent, t.fma);
  }
  fmt::print("\nCost summary:\n");
  if (report.totals.fma.empty()) fmt::print("  FMA: 0\n");
  for (const auto& [dt, n] : report.totals.fma) {
    auto v = report.fma_values.at(dt);
    if (v) {
      std::string rate;
      if (report.profiled && report.total_ms > 0)
        rate = fmt::format(", {:.3f} {} over the whole network", 2.0 * *v / (report.total_ms * 1e6),
                           dt == DatumType::I8 || dt == DatumType::U8 ? "GOP/s" : "GF/s");
      fmt::print("  {}: {} ({}){}\n", fma_type_text(dt), *v, human_count(static_cast<double>(*v)),
                 rate);
    } else {
      fmt::print("  {}: {}\n", fma_type_text(dt), n.to_string());
    }
  }
  if (report.totals.other != Dim(0))
    fmt::print("  other arithmetic (exp, div, sqrt...): {}\n", report.totals.other.to_string());
  fmt::print("  parameters read by ops: {}\n", report.totals.params_bytes.is_int()
                                                   ? bytes_text(report.totals.params_bytes.to_int())
                                                   : report.totals.params_bytes.to_string() + " B");
  if (report.unknown_cost.empty()) {
    fmt::print("  every node has a cost model\n");
  } else {
    fmt::print("  WARNING: {} node(s) without a cost model (not counted above):\n",
               report.unknown_cost.size());
    for (const auto& u : report.unknown_cost) fmt::print("    {}\n", u);
  }
  if (report.reference_nodes > 0)
    fmt::print(
        "  {} node(s) [reference] run the reference implementation of an op with a kernel form "
        "(codegen declined them){}\n",
        report.reference_nodes, report.stage == "optimize" ? "" : " -- not optimized yet");
  if (report.profiled) {
    fmt::print("\nEntire network performance: {:.3f} ms/i (mean of {} runs; median {:.3f})\n",
               report.total_ms, report.runs, report.median_ms);
    fmt::print("Accounted by ops: {:.3f} ms/i, {:.1f}%\n", report.accounted_ms,
               report.total_ms > 0 ? report.accounted_ms / report.total_ms * 100 : 0);
  }
  fmt::print("\nMemory:\n");
  fmt::print("  weights (constants): {} bytes ({})\n", report.weights_bytes,
             bytes_text(report.weights_bytes));
  if (report.activation_bytes.is_int())
    fmt::print("  activations (sum of every node output): {} bytes ({})\n",
               report.activation_bytes.to_int(), bytes_text(report.activation_bytes.to_int()));
  else
    fmt::print("  activations (sum of every node output): {} bytes\n",
               report.activation_bytes.to_string());
  if (report.arena) {
    const MemoryStats& m = *report.arena;
    fmt::print(
        "  arena (memory plan, reused slots): {} bytes ({}) for {} values of {} bytes; all node "
        "outputs: {} bytes ({}), arena = {:.1f}% of that\n",
        m.arena_bytes, bytes_text(static_cast<int64_t>(m.arena_bytes)), m.planned_values,
        m.planned_bytes, m.outputs_bytes, bytes_text(static_cast<int64_t>(m.outputs_bytes)),
        m.outputs_bytes
            ? 100.0 * static_cast<double>(m.arena_bytes) / static_cast<double>(m.outputs_bytes)
            : 0.0);
    fmt::print("  kernel scratch: {} bytes ({})\n", m.scratch_bytes,
               bytes_text(static_cast<int64_t>(m.scratch_bytes)));
  }
  fmt::print("  peak RSS: {} bytes ({})\n", report.peak_rss_bytes,
             bytes_text(report.peak_rss_bytes));
}

nlohmann::json report_json(const Report& report) {
  SymbolValues none;
  nlohmann::json nodes = nlohmann::json::array();
  nlohmann::json body_nodes = nlohmann::json::array();
  for (const auto& r : report.rows) {
    if (!r.body.empty()) {
      body_nodes.push_back({{"body", r.body},
                            {"top_node", r.top_node},
                            {"depth", r.depth},
                            {"id", r.node},
                            {"name", r.name},
                            {"op", r.op},
                            {"ms", r.ms},
                            {"percent", r.percent},
                            {"calls_per_run", r.calls}});
      continue;
    }
    const Cost& c = r.cost.cost;
    nlohmann::json shapes = nlohmann::json::array();
    std::string s = r.output_shapes;
    for (size_t start = 0; start <= s.size();) {
      size_t end = s.find(' ', start);
      if (end == std::string::npos) end = s.size();
      if (end > start) shapes.push_back(s.substr(start, end - start));
      start = end + 1;
    }
    nlohmann::json node{
        {"id", r.node},
        {"name", r.name},
        {"op", r.op},
        {"output_shapes", shapes},
        {"cost_known", c.known},
        {"fma", c.known ? (r.fma ? nlohmann::json(*r.fma) : nlohmann::json(c.fma.to_string()))
                        : nlohmann::json()},
        {"fma_type", std::string(name_of(c.fma_type))},
        {"other", c.known ? dim_json(c.other, none) : nlohmann::json()},
        {"params_bytes", dim_json(c.params_bytes, none)},
        {"output_bytes", dim_json(r.cost.output_bytes, none)}};
    if (report.profiled) {
      node["ms"] = r.ms;
      node["percent"] = r.percent;
      node["gflops"] = r.gflops;
    }
    if (!r.cost.error.empty()) node["cost_error"] = r.cost.error;
    node["reference"] = r.reference;
    if (!r.kernel.empty()) node["kernel"] = r.kernel;
    nodes.push_back(std::move(node));
  }
  nlohmann::json by_op = nlohmann::json::array();
  for (const auto& t : report.by_op) {
    nlohmann::json o{{"op", t.op}, {"nodes", t.nodes}, {"calls", t.calls}, {"fma", t.fma}};
    if (report.profiled) {
      o["ms"] = t.ms;
      o["percent"] = t.percent;
    }
    by_op.push_back(std::move(o));
  }
  nlohmann::json fma_by_type = nlohmann::json::object();
  int64_t total_fma = 0;
  bool total_known = true;
  for (const auto& [dt, n] : report.totals.fma) {
    auto v = report.fma_values.at(dt);
    fma_by_type[std::string(name_of(dt))] = v ? nlohmann::json(*v) : nlohmann::json(n.to_string());
    if (v)
      total_fma += *v;
    else
      total_known = false;
  }
  nlohmann::json doc{
      {"model", report.model},
      {"inputs", report.inputs},
      {"stage", report.stage},
      {"threads", report.threads},
      {"cpu", report.cpu},
      {"isa", report.isa},
      {"reference_nodes", report.reference_nodes},
      {"nodes", nodes},
      {"total_fma", total_known ? nlohmann::json(total_fma)
                                : nlohmann::json(report.totals.total_fma().to_string())},
      {"fma_by_type", fma_by_type},
      {"other", dim_json(report.totals.other, none)},
      {"params_bytes", dim_json(report.totals.params_bytes, none)},
      {"unknown_cost_nodes", report.unknown_cost},
      {"by_op", by_op},
      {"memory",
       {{"weights_bytes", report.weights_bytes},
        {"activation_bytes", dim_json(report.activation_bytes, none)},
        {"peak_rss_bytes", report.peak_rss_bytes}}}};
  if (report.arena) {
    const MemoryStats& m = *report.arena;
    doc["memory"]["arena_bytes"] = m.arena_bytes;
    doc["memory"]["planned_values"] = m.planned_values;
    doc["memory"]["planned_bytes"] = m.planned_bytes;
    doc["memory"]["outputs_bytes"] = m.outputs_bytes;
    doc["memory"]["scratch_bytes"] = m.scratch_bytes;
  }
  if (!report.memory_layout.empty()) {
    nlohmann::json plan = nlohmann::json::array();
    for (const auto& v : report.memory_layout)
      plan.push_back({{"node", v.outlet.node},
                      {"slot", v.outlet.slot},
                      {"offset", v.offset},
                      {"bytes", v.bytes},
                      {"first_step", v.first},
                      {"last_step", v.last}});
    doc["memory"]["plan"] = plan;
    doc["memory"]["order"] = report.order;
  }
  if (!report.timeline.empty()) {
    nlohmann::json events = nlohmann::json::array();
    for (const auto& e : report.timeline)
      events.push_back({{"node", e.node}, {"start_us", e.start_us}, {"us", e.duration_us}});
    doc["timeline"] = {{"run", report.timeline.front().run}, {"thread", 0}, {"events", events}};
  }
  if (report.profiled) {
    doc["body_nodes"] = body_nodes;
    doc["runs"] = report.runs;
    doc["total_ms"] = report.total_ms;
    doc["median_ms"] = report.median_ms;
    doc["accounted_ms"] = report.accounted_ms;
    doc["accounted_percent"] =
        report.total_ms > 0 ? report.accounted_ms / report.total_ms * 100 : 0.0;
  }
  return doc;
}

std::vector<NodeEvent> median_run_events(const ProfileResult& profile) {
  if (profile.events.empty() || profile.run_ms.empty()) return {};
  std::vector<size_t> runs(profile.run_ms.size());
  for (size_t i = 0; i < runs.size(); i++) runs[i] = i;
  std::nth_element(runs.begin(), runs.begin() + static_cast<long>(runs.size() / 2), runs.end(),
                   [&](size_t a, size_t b) { return profile.run_ms[a] < profile.run_ms[b]; });
  int median = static_cast<int>(runs[runs.size() / 2]);
  std::vector<NodeEvent> out;
  for (const auto& e : profile.events)
    if (e.run == median && e.body < 0) out.push_back(e);  // the top-level nodes' timeline
  // Relative to the run's first node.
  if (!out.empty()) {
    double origin = out.front().start_us;
    for (auto& e : out) e.start_us -= origin;
  }
  return out;
}

void write_trace(const std::string& path, const Graph& graph, const ProfileResult& profile) {
  nlohmann::json events = nlohmann::json::array();
  for (const auto& e : profile.events) {
    if (e.body >= 0) {
      // A body node: nested in time inside its top-level node's event.
      const BodyNodeProfile& b = profile.body_nodes.at(static_cast<size_t>(e.body));
      events.push_back(
          {{"name", b.name.empty() ? b.op : b.name},
           {"cat", b.op},
           {"ph", "X"},
           {"ts", e.start_us},
           {"dur", e.duration_us},
           {"pid", 1},
           {"tid", 1},
           {"args", {{"body", b.path}, {"node", b.node}, {"op", b.op}, {"run", e.run}}}});
      continue;
    }
    const Node& n = graph.node(e.node);
    events.push_back({{"name", n.name.empty() ? n.op->name() : n.name},
                      {"cat", n.op->name()},
                      {"ph", "X"},
                      {"ts", e.start_us},
                      {"dur", e.duration_us},
                      {"pid", 1},
                      {"tid", 1},
                      {"args", {{"node", e.node}, {"op", n.op->name()}, {"run", e.run}}}});
  }
  nlohmann::json doc{{"traceEvents", events}, {"displayTimeUnit", "ms"}};
  std::ofstream out(path);
  KILN_ENSURE(out, "--trace {}: cannot write the file", path);
  out << doc.dump() << "\n";
  KILN_ENSURE(out.good(), "--trace {}: write failed", path);
}

}  // namespace kiln::cli
