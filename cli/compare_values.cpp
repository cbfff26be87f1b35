#include "cli/compare_values.h"

#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>

namespace kiln::cli {

const char* status_name(ValueStatus s) {
  switch (s) {
    case ValueStatus::Ok:
      return "ok";
    case ValueStatus::OverTolerance:
      return "OVER";
    case ValueStatus::Scaled:
      return "scaled";
    case ValueStatus::ShapeDiffers:
      return "shape";
    case ValueStatus::NotComparable:
      return "skipped";
    case ValueStatus::OnlyInA:
      return "only-A";
    case ValueStatus::Fused:
      return "fused";
  }
  return "?";
}

namespace {

std::string shape_text(const Tensor& t) {
  if (t.is_null()) return "-";
  return (t.rank() ? shape_to_string(t.shape()) + "," : std::string()) +
         std::string(name_of(t.dtype()));
}

// Consumers of each value, by index, from the values' input keys.
std::vector<std::vector<int>> consumers_of(const CapturedRun& run) {
  std::vector<std::vector<int>> out(run.values.size());
  for (size_t i = 0; i < run.values.size(); i++)
    for (const auto& k : run.values[i].input_keys) {
      int p = run.find(k);
      if (p >= 0) out[static_cast<size_t>(p)].push_back(static_cast<int>(i));
    }
  return out;
}

bool known_to(const CapturedRun& other, const CapturedValue& v) {
  return other.find(v.key) >= 0 || (!v.output_alias.empty() && other.find(v.output_alias) >= 0);
}

// The values downstream of value `i` through nodes the other side does not have, nearest first
// (at most 32): where the other side's value of i's key may really be (see the header).
std::vector<int> fused_region(const CapturedRun& run,
                              const std::vector<std::vector<int>>& consumers,
                              const CapturedRun& other, int i) {
  std::vector<int> region;
  if (!run.has_structure) return region;
  std::vector<int> queue = {i};
  std::set<int> seen = {i};
  for (size_t q = 0; q < queue.size() && region.size() < 32; q++) {
    int v = queue[q];
    if (!run.values[static_cast<size_t>(v)].output_alias.empty()) continue;
    for (int next : consumers[static_cast<size_t>(v)]) {
      if (next <= v || seen.count(next) || known_to(other, run.values[static_cast<size_t>(next)]))
        continue;
      seen.insert(next);
      queue.push_back(next);
      region.push_back(next);
    }
  }
  return region;
}

// The members of `region` on a path from `from` to `to` (both in the region or `from`).
std::vector<int> path_members(const CapturedRun& run, const std::vector<int>& region, int from,
                              int to) {
  std::set<int> members(region.begin(), region.end());
  std::map<int, bool> reaches;  // value -> reaches `to` through members
  std::function<bool(int)> visit = [&](int v) -> bool {
    if (v == to) return true;
    auto it = reaches.find(v);
    if (it != reaches.end()) return it->second;
    reaches[v] = false;
    bool r = false;
    for (size_t j = static_cast<size_t>(v) + 1; j < run.values.size(); j++) {
      if (!members.count(static_cast<int>(j))) continue;
      for (const auto& k : run.values[j].input_keys)
        if (k == run.values[static_cast<size_t>(v)].key && visit(static_cast<int>(j))) r = true;
    }
    return reaches[v] = r;
  };
  std::vector<int> out;
  for (int m : region)
    if (m != to && m != from && visit(m)) out.push_back(m);
  if (from != to) out.push_back(to);
  return out;
}

void compare_pair(const Tensor& a, const Tensor& b, double rtol, double atol, ValueComparison& r) {
  if (a.is_null() || b.is_null() || !(is_numeric(a.dtype()) || a.dtype() == DatumType::Bool) ||
      !(is_numeric(b.dtype()) || b.dtype() == DatumType::Bool)) {
    r.status = ValueStatus::NotComparable;
    r.why = "not a numeric tensor on both sides";
    return;
  }
  if (a.shape() != b.shape()) {
    r.status = ValueStatus::ShapeDiffers;
    r.why = fmt::format("A {} vs B {}", shape_text(a), shape_text(b));
    return;
  }
  bool exact = !is_float(a.dtype()) || !is_float(b.dtype());
  r.elements = a.numel();
  double dot_ab = 0, dot_aa = 0;
  for (int64_t i = 0; i < a.numel(); i++) {
    double x = a.value_as_double(i), y = b.value_as_double(i);
    if (std::isnan(x) || std::isnan(y)) {
      if (std::isnan(x) != std::isnan(y)) {
        r.mismatches++;
        r.max_abs = INFINITY;
      }
      continue;
    }
    double d = x == y ? 0.0 : std::fabs(x - y);  // equal infinities differ by 0
    if (std::isnan(d)) d = INFINITY;
    r.max_abs = std::max(r.max_abs, d);
    if (std::fabs(y) > atol) r.max_rel = std::max(r.max_rel, d / std::fabs(y));
    bool ok = exact ? d == 0 : d <= atol + rtol * std::fabs(y);
    if (!ok) r.mismatches++;
    dot_ab += x * y;
    dot_aa += x * x;
  }
  r.status = r.mismatches ? ValueStatus::OverTolerance : ValueStatus::Ok;
  if (!r.mismatches || exact || dot_aa <= 0) return;
  // B = c * A within tolerance, c away from 1: a constant factor moved by a pass.
  double c = dot_ab / dot_aa;
  if (!std::isfinite(c) || std::fabs(c - 1) < 1e-3) return;
  for (int64_t i = 0; i < a.numel(); i++) {
    double x = a.value_as_double(i), y = b.value_as_double(i);
    if (std::isnan(x) || std::isnan(y)) continue;
    if (!(std::fabs(c * x - y) <= atol + rtol * std::fabs(y))) return;
  }
  r.status = ValueStatus::Scaled;
  r.scale = c;
}

}  // namespace

Comparison compare_runs(const CapturedRun& a, const CapturedRun& b, double rtol, double atol) {
  Comparison c;
  c.rtol = rtol;
  c.atol = atol;
  auto users_a = consumers_of(a), users_b = consumers_of(b);
  std::vector<char> b_used(b.values.size(), 0);
  std::map<int, std::string> fused_into;  // A index -> key it was compared under
  c.values.resize(a.values.size());
  for (size_t i = 0; i < a.values.size(); i++) {
    const CapturedValue& av = a.values[i];
    ValueComparison& r = c.values[i];
    r.step = static_cast<int>(i);
    r.key = av.key;
    r.node_name = av.node_name;
    r.op = av.op;
    r.shape = shape_text(av.value);
    r.is_output = !av.output_alias.empty();
    int bi = r.is_output ? b.find(av.output_alias) : -1;
    if (bi < 0) bi = b.find(av.key);
    if (bi < 0) {
      auto f = fused_into.find(static_cast<int>(i));
      r.status = f == fused_into.end() ? ValueStatus::OnlyInA : ValueStatus::Fused;
      if (f != fused_into.end()) r.b_key = f->second;
      (f == fused_into.end() ? c.only_in_a : c.fused)++;
      continue;
    }
    // The value of the same key first; when it differs, the values one side computes in nodes
    // the other fused away (see the header): the first that agrees, else the structural guess.
    b_used[static_cast<size_t>(bi)] = 1;
    r.b_key = b.values[static_cast<size_t>(bi)].key;
    compare_pair(av.value, b.values[static_cast<size_t>(bi)].value, rtol, atol, r);
    auto agrees = [](const ValueComparison& x) {
      return x.status == ValueStatus::Ok || x.status == ValueStatus::Scaled;
    };
    if (!agrees(r)) {
      auto region_a = fused_region(a, users_a, b, static_cast<int>(i));
      auto region_b = fused_region(b, users_b, a, bi);
      std::vector<std::pair<int, int>> pairs;  // (A index, B index)
      for (int k : region_a) pairs.push_back({k, bi});
      for (int k : region_b) pairs.push_back({static_cast<int>(i), k});
      // Take the first pair that agrees; when none does, the closest one (fewest elements over
      // tolerance), which is where the difference most plausibly is.
      std::optional<ValueComparison> best;
      std::pair<int, int> best_pair{static_cast<int>(i), bi};
      bool found = false;
      for (const auto& [ka, kb] : pairs) {
        ValueComparison alt;
        alt.step = r.step;
        alt.key = r.key;
        alt.node_name = r.node_name;
        alt.op = r.op;
        alt.shape = r.shape;
        alt.is_output = r.is_output;
        compare_pair(a.values[static_cast<size_t>(ka)].value,
                     b.values[static_cast<size_t>(kb)].value, rtol, atol, alt);
        if (agrees(alt)) {
          best = alt;
          best_pair = {ka, kb};
          found = true;
          break;
        }
        if (alt.status == ValueStatus::OverTolerance &&
            (!best || alt.mismatches < best->mismatches)) {
          best = alt;
          best_pair = {ka, kb};
        }
      }
      if (best &&
          (found || r.status != ValueStatus::OverTolerance || best->mismatches < r.mismatches)) {
        auto [ka, kb] = best_pair;
        r = *best;
        r.b_key = b.values[static_cast<size_t>(kb)].key;
        for (int m : path_members(a, region_a, static_cast<int>(i), ka)) {
          fused_into[m] = av.key;
          r.fused.push_back(a.values[static_cast<size_t>(m)].key);
        }
        for (int m : path_members(b, region_b, bi, kb)) b_used[static_cast<size_t>(m)] = 1;
      }
    }
    switch (r.status) {
      case ValueStatus::Ok:
        c.compared++;
        break;
      case ValueStatus::OverTolerance:
        c.compared++;
        c.over++;
        if (c.first_over < 0) c.first_over = static_cast<int>(i);
        break;
      case ValueStatus::Scaled:
        c.compared++;
        c.scaled++;
        break;
      default:
        c.not_compared++;
    }
    if (r.is_output && (r.status == ValueStatus::Ok || r.status == ValueStatus::OverTolerance ||
                        r.status == ValueStatus::Scaled)) {
      c.outputs_compared++;
      if (r.status != ValueStatus::Ok) c.outputs_over++;
    }
  }
  for (size_t j = 0; j < b.values.size(); j++)
    if (!b_used[j]) c.only_in_b.push_back(b.values[j].key);
  return c;
}

namespace {

std::string error_text(const ValueComparison& r) {
  switch (r.status) {
    case ValueStatus::Ok:
    case ValueStatus::OverTolerance:
      return fmt::format("max abs {:.3g}, max rel {:.3g}{}", r.max_abs, r.max_rel,
                         r.mismatches
                             ? fmt::format(", {} of {} elements over", r.mismatches, r.elements)
                             : std::string());
    case ValueStatus::Scaled:
      return fmt::format("B = {:.6g} x A (a constant factor moved by a pass)", r.scale);
    case ValueStatus::ShapeDiffers:
    case ValueStatus::NotComparable:
      return r.why;
    case ValueStatus::OnlyInA:
      return "not in B";
    case ValueStatus::Fused:
      return "fused in B into " + r.b_key;
  }
  return "";
}

// Errors of the values the node of A's value `index` reads.
std::vector<const ValueComparison*> input_rows(const Comparison& c, const CapturedRun& a,
                                               int index) {
  std::vector<const ValueComparison*> out;
  for (const auto& k : a.values[static_cast<size_t>(index)].input_keys) {
    int p = a.find(k);
    if (p >= 0) out.push_back(&c.values[static_cast<size_t>(p)]);
  }
  return out;
}

}  // namespace

std::string comparison_text(const Comparison& c, const CapturedRun& a, bool failures_only) {
  std::string out = fmt::format(
      "Per value in A's evaluation order (ok when |a - b| <= {} + {} x |b| everywhere):\n", c.atol,
      c.rtol);
  for (const auto& r : c.values) {
    if (failures_only && (r.status == ValueStatus::Ok || r.status == ValueStatus::Fused)) continue;
    out += fmt::format("{:>5} {:<7} {:<18} {} -> {}: {}{}\n", r.step, status_name(r.status), r.op,
                       r.node_name, r.shape, error_text(r),
                       r.fused.empty() ? "" : fmt::format(" (A through {})", r.fused.back()));
  }
  out += fmt::format(
      "\n{} values compared: {} within tolerance, {} over, {} scaled; {} fused in B, {} only in "
      "A, {} only in B, {} not comparable\n",
      c.compared, c.compared - c.over - c.scaled, c.over, c.scaled, c.fused, c.only_in_a,
      c.only_in_b.size(), c.not_compared);
  out += fmt::format("Model outputs: {} compared, {} over tolerance\n", c.outputs_compared,
                     c.outputs_over);
  if (c.first_over >= 0) {
    const auto& r = c.values[static_cast<size_t>(c.first_over)];
    out += fmt::format("\nFirst value over tolerance: step {}, node '{}' ({}) -> {}: {}\n", r.step,
                       r.node_name, r.op, r.shape, error_text(r));
    auto ins = input_rows(c, a, c.first_over);
    if (ins.empty()) out += "  its inputs: model inputs and constants only (identical)\n";
    for (const auto* in : ins) {
      const ValueComparison* shown = in;
      std::string via;
      // A value B computes inside another node: that node's comparison stands for it.
      if (in->status == ValueStatus::Fused && a.find(in->b_key) >= 0) {
        shown = &c.values[static_cast<size_t>(a.find(in->b_key))];
        via = fmt::format(" (computed inside B's {})", shown->b_key);
      }
      out += fmt::format("  input '{}' ({}){}: {} {}\n", in->node_name, in->op, via,
                         status_name(shown->status), error_text(*shown));
    }
  } else {
    out += "\nNo value over tolerance.\n";
  }
  return out;
}

nlohmann::json comparison_json(const Comparison& c, const CapturedRun& a) {
  auto row = [](const ValueComparison& r) {
    nlohmann::json j{{"step", r.step},       {"key", r.key},     {"name", r.node_name},
                     {"op", r.op},           {"shape", r.shape}, {"status", status_name(r.status)},
                     {"output", r.is_output}};
    if (!r.b_key.empty()) j["b_key"] = r.b_key;
    if (!r.fused.empty()) j["fused"] = r.fused;
    if (r.status == ValueStatus::Ok || r.status == ValueStatus::OverTolerance) {
      j["max_abs"] = std::isfinite(r.max_abs) ? nlohmann::json(r.max_abs) : nlohmann::json("inf");
      j["max_rel"] = std::isfinite(r.max_rel) ? nlohmann::json(r.max_rel) : nlohmann::json("inf");
      j["mismatches"] = r.mismatches;
      j["elements"] = r.elements;
    }
    if (r.status == ValueStatus::Scaled) j["scale"] = r.scale;
    if (!r.why.empty()) j["why"] = r.why;
    return j;
  };
  nlohmann::json values = nlohmann::json::array();
  for (const auto& r : c.values) values.push_back(row(r));
  nlohmann::json doc{{"rtol", c.rtol},
                     {"atol", c.atol},
                     {"values", values},
                     {"compared", c.compared},
                     {"over_tolerance", c.over},
                     {"scaled", c.scaled},
                     {"fused", c.fused},
                     {"only_in_a", c.only_in_a},
                     {"only_in_b", c.only_in_b},
                     {"not_comparable", c.not_compared},
                     {"outputs_compared", c.outputs_compared},
                     {"outputs_over_tolerance", c.outputs_over},
                     {"clean", c.clean()}};
  if (c.first_over >= 0) {
    nlohmann::json first = row(c.values[static_cast<size_t>(c.first_over)]);
    nlohmann::json inputs = nlohmann::json::array();
    for (const auto* in : input_rows(c, a, c.first_over)) inputs.push_back(row(*in));
    first["inputs"] = inputs;
    doc["first_over_tolerance"] = first;
  } else {
    doc["first_over_tolerance"] = nullptr;
  }
  return doc;
}

}  // namespace kiln::cli
