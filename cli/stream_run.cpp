#include "cli/stream_run.h"

#include <fmt/format.h>

#include <cstring>
#include <filesystem>
#include <map>

#include "base/error.h"
#include "cli/stage_options.h"
#include "cli/wav_input.h"
#include "core/session.h"
#include "io/tensor/tensor_files.h"
#include "passes/pipeline.h"

namespace kiln::cli {

namespace {

size_t input_index(const Graph& g, const std::string& name, const std::string& option) {
  std::string names;
  for (size_t i = 0; i < g.inputs().size(); i++) {
    if (g.input_name(i) == name) return i;
    names += " " + g.input_name(i);
  }
  fail("{}: the model has no input named '{}' (inputs:{})", option, name, names);
}

size_t output_index(const Graph& g, const std::string& name, const std::string& option) {
  std::string names;
  for (size_t i = 0; i < g.output_names().size(); i++) {
    if (g.output_names()[i] == name) return i;
    names += " " + g.output_names()[i];
  }
  fail("{}: the model has no output named '{}' (outputs:{})", option, name, names);
}

}  // namespace

int run_stream(const StreamRunOptions& o) {
  KILN_ENSURE(o.chunk > 0, "--chunk must be a positive sample count, got {}", o.chunk);
  KILN_ENSURE(o.context >= 0, "--context must not be negative, got {}", o.context);
  auto graph = load_model_with_facts(o.model);
  const size_t n = graph->inputs().size();
  const size_t streamed = input_index(*graph, o.stream, "--stream");
  // State wiring: output index -> input index.
  std::vector<std::pair<size_t, size_t>> wires;
  for (const auto& s : o.states) {
    auto colon = s.find(':');
    KILN_ENSURE(colon != std::string::npos && colon > 0 && colon + 1 < s.size(),
                "--state {}: expected OUTPUT:INPUT, e.g. --state stateN:state", s);
    wires.push_back({output_index(*graph, s.substr(0, colon), "--state " + s),
                     input_index(*graph, s.substr(colon + 1), "--state " + s)});
    KILN_ENSURE(wires.back().second != streamed, "--state {}: '{}' is the streamed input", s,
                o.stream);
  }
  // Inputs: the streamed one from its file (a .wav as samples), the others as kiln run takes
  // them, states defaulting to zeros, constant inputs (-i sr:i64=16000) to their value.
  InputOptions others = o.inputs;
  others.files.clear();
  Tensor whole;
  std::vector<Tensor> inputs(n);
  for (const auto& spec : o.inputs.files) {
    size_t eq = spec.find('=');
    if (eq != std::string::npos && spec.substr(0, eq) == o.stream) {
      std::string path = spec.substr(eq + 1);
      if (path.size() > 4 && path.substr(path.size() - 4) == ".wav") {
        whole = read_wav_pcm16(path).samples;
      } else {
        whole = io::read_tensor_file(path).tensor;
      }
    } else {
      others.files.push_back(spec);
    }
  }
  KILN_ENSURE(!whole.is_null(),
              "--stream {}: give the whole input with --input {}=FILE.wav (or "
              ".npy)",
              o.stream, o.stream);
  KILN_ENSURE(whole.dtype() == DatumType::F32 && whole.rank() >= 1,
              "--stream {}: the input must be f32 with time as its last axis", o.stream);
  KILN_ENSURE(o.inputs.bundle.empty(),
              "--stream: give the other inputs by name (--input NAME=FILE, -i NAME:TYPE=VALUE)");
  if (!o.inputs.npz.empty())
    for (auto& t : io::read_npz(o.inputs.npz))
      inputs[input_index(*graph, t.name, o.inputs.npz)] = std::move(t.tensor);
  for (const auto& spec : others.files) {
    size_t eq = spec.find('=');
    KILN_ENSURE(eq != std::string::npos, "--input {}: expected NAME=FILE", spec);
    size_t i = input_index(*graph, spec.substr(0, eq), "--input " + spec);
    inputs[i] = io::read_tensor_file(spec.substr(eq + 1), &graph->fact(graph->inputs()[i])).tensor;
  }
  for (size_t i = 0; i < n; i++) {
    if (i == streamed || !inputs[i].is_null()) continue;
    const Fact& f = graph->fact(graph->inputs()[i]);
    if (f.value) {
      inputs[i] = *f.value;
      continue;
    }
    bool state = false;
    for (auto [out, in] : wires) state = state || in == i;
    KILN_ENSURE(state,
                "--stream: input '{}' ({}) is missing: give it with --input or -i (state inputs "
                "start as zeros)",
                graph->input_name(i), f.to_string());
    // A state's symbolic dims (a batch dim) are 1 unless given with -i.
    Shape shape;
    for (const Dim& d : f.shape) shape.push_back(d.as_int().value_or(1));
    inputs[i] = Tensor(f.dt, shape);
    std::memset(inputs[i].raw_data(), 0, inputs[i].nbytes());
  }
  // The chunk tensor: the whole input's shape with C + N samples on its last axis.
  const size_t axis = whole.rank() - 1;
  const int64_t total = whole.dim(axis);
  const int64_t width = o.context + o.chunk;
  Shape cs = whole.shape();
  cs[axis] = width;
  Tensor chunk(DatumType::F32, cs);
  inputs[streamed] = chunk;
  bind_input_shapes(*graph, inputs);
  passes::check_constant_inputs(*graph, inputs);
  passes::run_to_stage(*graph, passes::Stage::Optimize);
  Session session(passes::plan(graph));

  int64_t outer = 1;
  for (size_t i = 0; i < axis; i++) outer *= whole.dim(i);
  const int64_t chunks = (total + o.chunk - 1) / o.chunk;
  std::vector<std::vector<Tensor>> per_output(graph->outputs().size());
  std::vector<Tensor> outputs;
  for (int64_t k = 0; k < chunks; k++) {
    float* dst = chunk.data<float>();
    const float* src = whole.data<float>();
    for (int64_t b = 0; b < outer; b++)
      for (int64_t j = 0; j < width; j++) {
        int64_t t = k * o.chunk - o.context + j;
        dst[b * width + j] = t >= 0 && t < total ? src[b * total + t] : 0.0f;
      }
    outputs = session.run(inputs);
    for (auto [out, in] : wires) {
      KILN_ENSURE(outputs[out].shape() == inputs[in].shape(),
                  "--state: output '{}' is [{}] but input '{}' is [{}]", graph->output_names()[out],
                  shape_to_string(outputs[out].shape()), graph->input_name(in),
                  shape_to_string(inputs[in].shape()));
      inputs[in] = outputs[out].clone();
    }
    for (size_t i = 0; i < outputs.size(); i++) {
      bool state = false;
      for (auto [out, in] : wires) state = state || out == i;
      if (state) continue;
      per_output[i].push_back(outputs[i].clone());
      if (!o.quiet)
        fmt::print("chunk {} samples [{}, {}): {} = {}\n", k, k * o.chunk,
                   std::min(total, (k + 1) * o.chunk), graph->output_names()[i],
                   outputs[i].to_string(8));
    }
  }
  if (!o.output_dir.empty()) {
    std::filesystem::create_directories(o.output_dir);
    for (size_t i = 0; i < per_output.size(); i++) {
      if (per_output[i].empty()) continue;
      // Stacked: [chunks, ...the output's shape].
      Shape s = per_output[i][0].shape();
      s.insert(s.begin(), static_cast<int64_t>(per_output[i].size()));
      Tensor stacked(per_output[i][0].dtype(), s);
      char* p = static_cast<char*>(stacked.raw_data());
      for (const Tensor& t : per_output[i]) {
        KILN_ENSURE(t.nbytes() == per_output[i][0].nbytes(),
                    "output '{}' changes shape between chunks", graph->output_names()[i]);
        std::memcpy(p, t.raw_data(), t.nbytes());
        p += t.nbytes();
      }
      auto path =
          std::filesystem::path(o.output_dir) / fmt::format("output_{}.{}", i, o.output_format);
      if (o.output_format == "npy")
        io::write_npy(path.string(), stacked);
      else
        io::write_tensor_pb(path.string(), stacked, graph->output_names()[i]);
    }
  }
  if (!o.quiet)
    fmt::print("{} chunks of {} new samples (+{} of context) over {} samples\n", chunks, o.chunk,
               o.context, total);
  return 0;
}

}  // namespace kiln::cli
