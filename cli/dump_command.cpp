// kiln dump: prints the graph, one line per node (or JSON).
#include <fmt/format.h>

#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "cli/commands.h"
#include "cli/cost_profile.h"
#include "cli/model_setup.h"
#include "cli/pulse_dump.h"
#include "cli/stage_options.h"
#include "core/graph.h"
#include "io/nnef/nnef_writer.h"

namespace kiln::cli {

namespace {

struct DumpOptions {
  ModelOptions model;
  StageOptions stage;
  bool passes = false;
  bool json = false;
  CostProfileOptions cost_profile;  // --cost, --profile and their inputs and limits
  std::string nnef_graph;           // print only graph.nnef ("-": stdout)
  CLI::Option* stage_option = nullptr;
  std::string pulse;  // --pulse: the pulsed graph
};

std::string inputs_text(const Node& n) {
  std::string out;
  for (const auto& in : n.inputs) {
    if (!out.empty()) out += ",";
    out += in.present()
               ? (in.slot ? fmt::format("{}/{}", in.node, in.slot) : std::to_string(in.node))
               : "_";
  }
  return out;
}

int print_nnef_graph(const Graph& graph, const std::string& target) {
  std::string text = nnef::write_nnef(graph).files.at("graph.nnef");
  if (target == "-") {
    fmt::print("{}", text);
  } else {
    std::ofstream out(target, std::ios::binary);
    out << text;
    KILN_ENSURE(out.good(), "cannot write '{}'", target);
  }
  return 0;
}

int dump(const DumpOptions& o) {
  if (!o.pulse.empty())
    return dump_pulsed({o.model, o.stage, o.pulse, o.json, o.cost_profile.cost});
  if (o.cost_profile.cost || o.cost_profile.profile) {
    CostProfileOptions cp = o.cost_profile;
    cp.model = o.model;
    cp.stage = o.stage;
    cp.json = o.json;
    cp.summary = true;
    // A profile times what users run: the optimize stage `kiln run` executes, unless --stage
    // asks for another (costs alone keep dump's typed default, to compare stages).
    bool stage_given = o.stage.optimize || (o.stage_option && o.stage_option->count() > 0);
    if (cp.profile && !stage_given) {
      cp.stage.stage = "optimize";
      cp.stage_note = " (what kiln run executes; --stage typed profiles the reference graph)";
    } else if (cp.profile && selected_stage(cp.stage) != passes::Stage::Optimize) {
      cp.stage_note =
          fmt::format(" -- NOT what kiln run executes (the optimize stage): times of the {} graph",
                      passes::stage_name(selected_stage(cp.stage)));
    }
    return run_cost_profile(cp);
  }
  PassReport report;
  auto graph = load_model_at_stage(o.model, o.stage, &report);
  if (!o.nnef_graph.empty()) return print_nnef_graph(*graph, o.nnef_graph);
  if (o.passes) {
    fmt::print("{}\n", o.json ? pass_report_json(report) : pass_report_text(report));
    return 0;
  }
  if (o.json) {
    nlohmann::json nodes = nlohmann::json::array();
    for (const auto& n : graph->nodes()) {
      nlohmann::json inputs = nlohmann::json::array();
      for (const auto& in : n.inputs)
        inputs.push_back(in.present() ? nlohmann::json{{"node", in.node}, {"slot", in.slot}}
                                      : nlohmann::json());
      nlohmann::json outputs = nlohmann::json::array();
      for (const auto& f : n.outputs) {
        nlohmann::json shape = nlohmann::json::array();
        for (const auto& d : f.shape) {
          if (auto v = d.as_int())
            shape.push_back(*v);
          else
            shape.push_back(d.to_string());
        }
        outputs.push_back({{"dtype", std::string(name_of(f.dt))}, {"shape", shape}});
      }
      nlohmann::json attrs = nlohmann::json::object();
      for (const auto& [k, v] : n.op->attributes()) attrs[k] = v;
      nodes.push_back({{"id", n.id},
                       {"name", n.name},
                       {"op", n.op->name()},
                       {"inputs", inputs},
                       {"outputs", outputs},
                       {"attributes", attrs}});
    }
    nlohmann::json doc{{"nodes", nodes}};
    nlohmann::json ins = nlohmann::json::array(), outs = nlohmann::json::array();
    for (const auto& i : graph->inputs()) ins.push_back(i.node);
    for (size_t i = 0; i < graph->outputs().size(); i++)
      outs.push_back({{"node", graph->outputs()[i].node},
                      {"slot", graph->outputs()[i].slot},
                      {"name", graph->output_names()[i]}});
    doc["inputs"] = ins;
    doc["outputs"] = outs;
    fmt::print("{}\n", doc.dump(1));
    return 0;
  }
  for (const auto& n : graph->nodes()) {
    std::string facts;
    for (const auto& f : n.outputs) facts += (facts.empty() ? "" : " ") + f.to_string();
    std::string attrs;
    for (const auto& [k, v] : n.op->attributes()) attrs += fmt::format(" {}={}", k, v);
    std::string in = inputs_text(n);
    fmt::print("{:>4} {:<18} {}{}{} -> {}{}\n", n.id, n.op->name(), n.name,
               in.empty() ? "" : " <- ", in, facts, attrs);
  }
  for (size_t i = 0; i < graph->outputs().size(); i++)
    fmt::print("output {} '{}' = {}/{}\n", i, graph->output_names()[i], graph->outputs()[i].node,
               graph->outputs()[i].slot);
  return 0;
}

}  // namespace

Command add_dump_command(CLI::App& app) {
  auto o = std::make_shared<DumpOptions>();
  auto* cmd =
      app.add_subcommand("dump", "Print the model's graph: one line per node with its facts");
  add_model_options(cmd, o->model);
  add_stage_options(cmd, o->stage, "typed");
  o->stage_option = cmd->get_option("--stage");
  cmd->add_flag("--passes", o->passes,
                "Instead of the graph, report per pass its rewrites and the compute-node counts "
                "before/after (all stages up to --stage; -v logs the same report on stderr)");
  cmd->add_flag("--json", o->json,
                "Machine-readable output: {\"nodes\":[{\"id\",\"name\",\"op\",...}]}");
  cmd->add_flag("--cost", o->cost_profile.cost,
                "Per-node cost: FMA (symbolic when shapes are), other arithmetic, parameter and "
                "output bytes; nodes without a cost model are flagged");
  cmd->add_flag("--profile", o->cost_profile.profile,
                "Run the model (random inputs unless given) and time every node; with --cost, "
                "GF/s per node. Profiles the optimize stage (what kiln run executes) unless "
                "--stage says otherwise");
  cmd->add_option("--pulse", o->pulse,
                  "Pulsify: print the streaming model for P frames per call (8, or S=8 to name "
                  "the symbol), each value's stream axis, pulse and delay, the outputs' delays; "
                  "with --cost the FMA per pulse and the state in bytes; -O: optimized");
  add_input_options(cmd, o->cost_profile.inputs);
  add_profile_limit_options(cmd, o->cost_profile);
  cmd->add_option("--nnef-graph", o->nnef_graph,
                  "Print only the model's NNEF text graph (graph.nnef) to FILE, '-' for stdout");
  cmd->footer(
      "Examples:\n"
      "  kiln dump model.onnx\n"
      "  kiln dump model.onnx -i 1,S,40,f32 --json\n"
      "  kiln dump model.onnx --nnef-graph -         the graph as NNEF text\n"
      "  kiln dump model.onnx -O                      the optimized graph\n"
      "  kiln dump model.onnx --stage declutter -i sr:i64=16000 --passes\n"
      "  kiln dump model.onnx -i 1,S,40,f32 --cost          # FMA = 1536*S ...\n"
      "  kiln dump model.onnx --cost --profile --input-bundle test_data_set_0\n"
      "  kiln dump wavenet_kws/model.onnx --pulse 8 --cost   (streaming: delays, FMA/pulse, "
      "state)");
  return [o] { return dump(*o); };
}

}  // namespace kiln::cli
