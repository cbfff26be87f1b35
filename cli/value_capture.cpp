#include "cli/value_capture.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>

#include "base/error.h"
#include "core/source_ops.h"
#include "core/state.h"
#include "io/nnef/serializer.h"
#include "io/tensor/tensor_files.h"

namespace kiln::cli {

namespace fs = std::filesystem;

std::string value_key(const std::string& node_name, int slot) {
  std::string key = nnef::nnef_identifier(node_name);
  return slot ? fmt::format("{}_o{}", key, slot) : key;
}

int CapturedRun::find(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? -1 : it->second;
}

void CapturedRun::index() {
  by_name_.clear();
  // A key two values share (names made identifiers can collide) matches neither.
  std::map<std::string, int> seen;
  for (size_t i = 0; i < values.size(); i++) {
    for (const std::string* name : {&values[i].key, &values[i].output_alias}) {
      if (name->empty()) continue;
      auto [it, fresh] = seen.emplace(*name, static_cast<int>(i));
      if (!fresh) it->second = -1;
    }
  }
  for (const auto& [name, i] : seen)
    if (i >= 0) by_name_[name] = i;
}

CapturedRun capture_run(const GraphPtr& graph, const std::vector<Tensor>& inputs) {
  CapturedRun run;
  run.has_structure = true;
  State state(std::make_shared<Plan>(graph));
  const Graph& g = *graph;
  std::map<Outlet, std::string> output_names;
  for (size_t i = 0; i < g.outputs().size(); i++)
    output_names.emplace(g.outputs()[i], g.output_names()[i]);
  // Outputs nothing reads (LayerNormalization's statistics...) are left out.
  std::set<Outlet> used(g.outputs().begin(), g.outputs().end());
  for (const Node& n : g.nodes())
    for (const Outlet& in : n.inputs)
      if (in.present()) used.insert(in);
  auto computed = [&](Outlet o) {
    const Op* op = g.node(o.node).op.get();
    return !dynamic_cast<const SourceOp*>(op) && !dynamic_cast<const ConstOp*>(op);
  };
  NodeTimer timer = [&](int id, std::chrono::nanoseconds) {
    const Node& n = g.node(id);
    const std::vector<Tensor>& values = state.node_values(id);
    for (size_t s = 0; s < values.size(); s++) {
      if (!used.count(Outlet{id, static_cast<int>(s)})) continue;
      CapturedValue v;
      v.node = id;
      v.slot = static_cast<int>(s);
      v.key = value_key(n.name, v.slot);
      auto out = output_names.find(Outlet{id, v.slot});
      if (out != output_names.end())
        v.output_alias = "output:" + nnef::nnef_identifier(out->second);
      v.node_name = n.name;
      v.op = n.op->name();
      for (const Outlet& in : n.inputs)
        if (in.present() && computed(in))
          v.input_keys.push_back(value_key(g.node(in.node).name, in.slot));
      // Later nodes may reuse this value's arena memory: keep a copy.
      if (!values[s].is_null()) v.value = values[s].clone();
      run.values.push_back(std::move(v));
    }
  };
  run.outputs = state.run_timed(inputs, timer);
  run.index();
  return run;
}

namespace {

// A file name for a key: itself, or a shortened form with a hash when too long for a file system.
std::string file_for(const std::string& key) {
  if (key.size() <= 180) return key + ".npy";
  return fmt::format("{}_{:016x}.npy", key.substr(0, 160), std::hash<std::string>{}(key));
}

bool npy_can_hold(const Tensor& t) {
  return !t.is_null() && (is_numeric(t.dtype()) || t.dtype() == DatumType::Bool);
}

}  // namespace

void save_values(const CapturedRun& run, const std::string& dir) {
  fs::create_directories(dir);
  nlohmann::json values = nlohmann::json::array();
  nlohmann::json skipped = nlohmann::json::array();
  std::set<std::string> files;
  for (const auto& v : run.values) {
    if (!npy_can_hold(v.value)) {
      skipped.push_back({{"key", v.key}, {"op", v.op}});
      continue;
    }
    std::string file = file_for(v.key);
    if (!files.insert(file).second) {
      skipped.push_back({{"key", v.key}, {"op", v.op}, {"why", "duplicate key"}});
      continue;
    }
    io::write_npy((fs::path(dir) / file).string(), v.value);
    nlohmann::json entry{{"key", v.key},   {"file", file}, {"node", v.node_name},
                         {"slot", v.slot}, {"op", v.op},   {"input_keys", v.input_keys}};
    if (!v.output_alias.empty()) entry["output"] = v.output_alias.substr(7);
    values.push_back(std::move(entry));
  }
  nlohmann::json doc{{"producer", "kiln run --save-values"},
                     {"description", run.description},
                     {"values", values},
                     {"skipped", skipped}};
  std::ofstream out(fs::path(dir) / "values.json");
  out << doc.dump(1) << "\n";
  KILN_ENSURE(out.good(), "--save-values {}: cannot write values.json", dir);
}

CapturedRun load_values(const std::string& dir) {
  KILN_ENSURE(fs::is_directory(dir), "--reference {}: not a directory", dir);
  CapturedRun run;
  run.description = dir;
  fs::path index = fs::path(dir) / "values.json";
  if (fs::exists(index)) {
    std::ifstream in(index);
    nlohmann::json doc;
    try {
      doc = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
      fail("{}: not valid JSON: {}", index.string(), e.what());
    }
    KILN_ENSURE(doc.is_object() && doc.contains("values") && doc["values"].is_array(),
                "{}: expected {{\"values\": [...]}}", index.string());
    run.has_structure = true;
    if (doc.contains("producer") && doc["producer"].is_string())
      run.description += " (" + doc["producer"].get<std::string>() + ")";
    for (const auto& e : doc["values"]) {
      KILN_ENSURE(e.is_object() && e.contains("file") && e["file"].is_string(),
                  "{}: every value needs a \"file\"", index.string());
      std::string file = e["file"];
      KILN_ENSURE(file.find('/') == std::string::npos && file.find("..") == std::string::npos,
                  "{}: file '{}' must be a plain name in the directory", index.string(), file);
      CapturedValue v;
      v.node_name = e.value("node", std::string());
      v.slot = e.value("slot", 0);
      v.op = e.value("op", std::string());
      v.key = e.contains("key")     ? e["key"].get<std::string>()
              : v.node_name.empty() ? fs::path(file).stem().string()
                                    : value_key(v.node_name, v.slot);
      if (e.contains("output") && e["output"].is_string())
        v.output_alias = "output:" + nnef::nnef_identifier(e["output"].get<std::string>());
      if (e.contains("input_keys"))
        for (const auto& k : e["input_keys"]) v.input_keys.push_back(k.get<std::string>());
      try {
        v.value = io::read_npy((fs::path(dir) / file).string());
      } catch (Error& err) {
        err.with_context("reading reference value '" + v.key + "'");
        throw;
      }
      run.values.push_back(std::move(v));
    }
  } else {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.is_regular_file() && entry.path().extension() == ".npy")
        files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      CapturedValue v;
      v.key = nnef::nnef_identifier(f.stem().string());
      v.node_name = f.stem().string();
      v.value = io::read_npy(f.string());
      run.values.push_back(std::move(v));
    }
  }
  KILN_ENSURE(!run.values.empty(), "--reference {}: no .npy values", dir);
  run.index();
  return run;
}

}  // namespace kiln::cli
