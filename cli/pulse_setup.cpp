#include "cli/pulse_setup.h"

#include <fmt/format.h>

#include "base/error.h"
#include "io/model_loader.h"
#include "io/nnef/nnef_loader.h"
#include "passes/pipeline.h"

namespace kiln::cli {

PulsedSetup pulsify_model(Graph& loaded, const std::string& pulse, bool optimize) {
  passes::run_to_stage(loaded, passes::Stage::Declutter);
  PulsedSetup s;
  s.model = passes::pulsify(loaded, passes::parse_pulse(pulse));
  if (optimize) {
    passes::optimize(*s.model.graph);
    s.plan = passes::plan(s.model.graph);
  }
  return s;
}

namespace {

bool is_nnef(const ModelOptions& model) {
  std::optional<io::ModelFormat> format = model.format.empty()
                                              ? io::format_from_path(model.path)
                                              : io::parse_model_format(model.format);
  return format == io::ModelFormat::Nnef;
}

}  // namespace

std::optional<StreamSpec> pulsed_model_spec(const ModelOptions& model, const Graph& loaded) {
  if (!is_nnef(model)) return std::nullopt;
  return nnef::load_nnef_stream_spec(model.path, loaded);
}

bool is_pulsed_model(const ModelOptions& model) {
  return is_nnef(model) && nnef::has_nnef_stream_spec(model.path);
}

PulsedSetup load_pulsed_model(std::shared_ptr<Graph> loaded, const ModelOptions& model) {
  auto spec = pulsed_model_spec(model, *loaded);
  KILN_ENSURE(spec, "'{}' is not a pulsed model (no kiln_stream.json): give --pulse P", model.path);
  PulsedSetup s;
  s.model.spec = std::move(*spec);
  passes::run_to_stage(*loaded, passes::Stage::Optimize);
  s.model.graph = loaded;
  s.plan = passes::plan(loaded);
  return s;
}

Graph whole_stream_inputs(const Graph& pulsed, const StreamSpec& spec) {
  Graph g;
  for (size_t i = 0; i < spec.inputs.size(); i++) {
    Fact f = pulsed.fact(pulsed.inputs()[i]);
    const StreamPort& p = spec.inputs[i];
    if (p.streaming) {
      KILN_ENSURE(p.axis < f.shape.size(), "input '{}': stream axis {} out of its rank {}",
                  pulsed.input_name(i), p.axis, f.shape.size());
      f.shape[p.axis] = p.full;
    }
    g.add_source(pulsed.input_name(i), f);
  }
  return g;
}

std::string describe_delays(const StreamSpec& spec, const std::vector<std::string>& names) {
  std::string text;
  for (size_t i = 0; i < spec.outputs.size(); i++) {
    const StreamPort& p = spec.outputs[i];
    if (!text.empty()) text += "; ";
    if (!p.streaming) {
      text += fmt::format("output '{}': not a stream", names.at(i));
      continue;
    }
    text += fmt::format("output '{}': delay {} frames (axis {}, {} frames per pulse, length {})",
                        names.at(i), p.delay, p.axis, p.pulse, p.full.to_string());
  }
  return text;
}

}  // namespace kiln::cli
