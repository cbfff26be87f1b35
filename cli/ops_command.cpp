// kiln ops: the ONNX operators kiln translates, from its own translator registry, with the
// versions of each that kiln implements (the spec's versions up to the newest one its
// translator declares), so a user can check a model's ops before converting it. --missing
// lists, against the ONNX 1.23 operator list (io/onnx/spec_ops.inc), the operators kiln has
// no translator for and the versions it does not implement.
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "io/onnx/spec_ops.h"
#include "io/onnx/translator.h"

namespace kiln::cli {

namespace {

struct OpsOptions {
  bool json = false;
  bool missing = false;
};

struct Row {
  std::string domain, op;
  std::vector<int> versions;          // implemented
  std::vector<int> missing_versions;  // spec versions up to the newest implemented opset
  std::vector<int> spec_versions;
  bool supported = false;
  bool deprecated = false;
};

std::string list_text(const std::vector<int>& v) {
  return v.empty() ? "-" : fmt::format("{}", fmt::join(v, ","));
}

Row make_row(const std::string& domain, const std::string& op) {
  const auto& registry = onnx_io::OpRegistry::instance();
  std::string key_domain = domain == "ai.onnx" ? "" : domain;
  Row r{domain, op, {}, {}, {}, registry.find(key_domain, op) != nullptr, false};
  int newest = registry.newest_version(key_domain, op);
  int opset_limit = onnx_io::newest_implemented_opset(domain);
  if (const auto* spec = onnx_io::find_spec_op(domain, op)) {
    r.spec_versions = spec->versions;
    r.deprecated = spec->deprecated;
    for (int v : spec->versions) {
      if (r.supported && v <= newest)
        r.versions.push_back(v);
      else if (v <= opset_limit || !r.supported)
        r.missing_versions.push_back(v);
    }
  } else if (r.supported) {
    r.versions.push_back(1);  // an operator outside the spec: its only version
  }
  return r;
}

std::vector<Row> rows(bool missing) {
  std::vector<Row> out;
  if (missing) {
    for (const auto& s : onnx_io::spec_ops()) {
      Row r = make_row(s.domain, s.op);
      if (!r.missing_versions.empty()) out.push_back(std::move(r));
    }
    return out;
  }
  for (const auto& [domain, op] : onnx_io::OpRegistry::instance().list())
    out.push_back(make_row(domain.empty() ? "ai.onnx" : domain, op));
  return out;
}

int list_ops(const OpsOptions& o) {
  std::vector<Row> table = rows(o.missing);
  if (o.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : table)
      out.push_back({{"domain", r.domain},
                     {"op", r.op},
                     {"supported", r.supported},
                     {"since_opset", r.spec_versions.empty() ? 1 : r.spec_versions.front()},
                     {"versions", r.versions},
                     {"missing_versions", r.missing_versions},
                     {"spec_versions", r.spec_versions},
                     {"deprecated", r.deprecated}});
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
  if (o.missing) {
    fmt::print("{:<26} {:<24} {:<12} {}\n", "domain", "op", "kiln has", "missing versions");
    for (const auto& r : table)
      fmt::print("{:<26} {:<24} {:<12} {}{}\n", r.domain, r.op,
                 r.supported ? list_text(r.versions) : "-", list_text(r.missing_versions),
                 r.deprecated ? " (deprecated)" : "");
    size_t absent = 0;
    for (const auto& r : table) absent += !r.supported;
    fmt::print("{} operators of the ONNX 1.23 spec not supported, {} with versions missing\n",
               absent, table.size() - absent);
    return 0;
  }
  fmt::print("{:<26} {:<24} {}\n", "domain", "op", "versions kiln implements");
  size_t pairs = 0;
  for (const auto& r : table) {
    fmt::print(
        "{:<26} {:<24} {}{}\n", r.domain, r.op, list_text(r.versions),
        r.missing_versions.empty() ? "" : fmt::format(" (not {})", list_text(r.missing_versions)));
    pairs += r.versions.size();
  }
  fmt::print("{} supported operators, {} operator versions\n", table.size(), pairs);
  return 0;
}

}  // namespace

Command add_ops_command(CLI::App& app) {
  auto o = std::make_shared<OpsOptions>();
  auto* cmd = app.add_subcommand(
      "ops", "List the ONNX operators kiln supports, with the versions of each it implements");
  cmd->add_flag("--json", o->json,
                "Print a JSON array: domain, op, supported, since_opset, versions, "
                "missing_versions, spec_versions, deprecated");
  cmd->add_flag("--missing", o->missing,
                "List instead the operators of the ONNX 1.23 spec kiln lacks, or lacks versions "
                "of");
  cmd->footer(
      "Each row is an operator kiln translates and the opsets at which the ONNX 1.23 spec\n"
      "defines a version of it that kiln implements (ai.onnx up to opset 25): a model importing\n"
      "opset N uses the largest version <= N. A model whose opset selects a version kiln does\n"
      "not implement is refused with the version named; an opset newer than 25 gets a warning.\n"
      "Examples:\n"
      "  kiln ops                      the table\n"
      "  kiln ops --json | jq '.[] | select(.op == \"Loop\")'\n"
      "  kiln ops --missing            operators and versions not supported yet");
  return [o] { return list_ops(*o); };
}

}  // namespace kiln::cli
