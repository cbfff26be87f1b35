// kiln::api::Model, Runnable and Session: the CLI's own loading, facts, passes and sessions
// (io::load_model, io::apply_input_facts, passes::run_to_stage, kiln::Session) behind handles.
#include <spdlog/spdlog.h>

#include <chrono>
#include <map>
#include <new>
#include <string_view>

#include "api/api_internal.h"
#include "io/input_facts.h"
#include "io/model_loader.h"
#include "io/nnef/archive.h"
#include "io/nnef/nnef_writer.h"
#include "passes/pipeline.h"

namespace kiln::api {

void rethrow_as_api_error() {
  try {
    throw;
  } catch (const Error& e) {
    if (e.context().empty()) throw;
    throw Error(e.chain());
  } catch (const std::bad_alloc&) {
    throw Error("out of memory");
  } catch (const std::exception& e) {
    throw Error(e.what());
  }
}

namespace {

std::optional<io::ModelFormat> to_model_format(Format format) {
  switch (format) {
    case Format::Auto:
      return std::nullopt;
    case Format::Onnx:
      return io::ModelFormat::Onnx;
    case Format::TensorFlow:
      return io::ModelFormat::TensorFlow;
    case Format::Nnef:
      return io::ModelFormat::Nnef;
  }
  fail("unknown model format code {}", static_cast<int>(format));
}

void check_index(size_t index, size_t count, const char* what) {
  KILN_ENSURE(index < count, "{} {} out of range: the model has {} {}s", what, index, count, what);
}

}  // namespace

Model::Model(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

Model Model::load(const std::string& path, const LoadOptions& options) {
  return guarded([&] {
    auto impl = std::make_shared<Impl>();
    impl->graph = io::load_model(path, to_model_format(options.format),
                                 {options.input_nodes, options.output_nodes});
    return Model(std::move(impl));
  });
}

Model Model::load_from_memory(const void* data, size_t size, Format format, const std::string& name,
                              const LoadOptions& options) {
  return guarded([&] {
    KILN_ENSURE(format != Format::Auto,
                "'{}': a model in memory needs its format (onnx, tf or nnef)", name);
    KILN_ENSURE(data != nullptr || size == 0, "'{}': model data is a null pointer", name);
    auto impl = std::make_shared<Impl>();
    impl->graph = io::load_model_from_memory(std::string_view(static_cast<const char*>(data), size),
                                             *to_model_format(format), name,
                                             {options.input_nodes, options.output_nodes});
    return Model(std::move(impl));
  });
}

size_t Model::num_inputs() const {
  return impl_->graph->inputs().size();
}
size_t Model::num_outputs() const {
  return impl_->graph->outputs().size();
}
std::string Model::input_name(size_t index) const {
  return guarded([&] {
    check_index(index, num_inputs(), "input");
    return impl_->graph->input_name(index);
  });
}
std::string Model::output_name(size_t index) const {
  return guarded([&] {
    check_index(index, num_outputs(), "output");
    return impl_->graph->output_names()[index];
  });
}
std::string Model::input_fact(size_t index) const {
  return guarded([&] {
    check_index(index, num_inputs(), "input");
    return impl_->graph->fact(impl_->graph->inputs()[index]).to_string();
  });
}

void Model::set_input_fact(const std::string& spec) {
  guarded([&] { io::apply_input_fact(*impl_->graph, spec, impl_->positional); });
}

void Model::set_input_fact(size_t index, const std::string& fact) {
  guarded([&] {
    check_index(index, num_inputs(), "input");
    std::string name = impl_->graph->input_name(index);
    Fact parsed;
    try {
      parsed = Fact::parse(fact);
    } catch (Error& e) {
      e.with_context("-i " + name + ":" + fact);
      throw;
    }
    impl_->graph->set_input_fact(index, std::move(parsed));
  });
}

void Model::save_nnef(const std::string& path, bool strict) const {
  guarded([&] {
    Graph graph = *impl_->graph;
    passes::run_to_stage(graph, passes::Stage::Declutter);
    nnef::WriteOptions options;
    options.strict = strict;
    try {
      nnef::write_container(path, nnef::write_nnef(graph, options).files);
    } catch (Error& e) {
      e.with_context(fmt::format("converting to NNEF '{}'", path));
      throw;
    }
  });
}

Runnable Model::optimize() const {
  return prepare(Stage::Optimize);
}

Runnable Model::prepare(Stage stage) const {
  return guarded([&] {
    auto impl = std::make_shared<Runnable::Impl>();
    impl->loaded = std::make_shared<const Graph>(*impl_->graph);
    auto graph = std::make_shared<Graph>(*impl_->graph);
    passes::Stage to = stage == Stage::Typed       ? passes::Stage::Typed
                       : stage == Stage::Declutter ? passes::Stage::Declutter
                                                   : passes::Stage::Optimize;
    passes::run_to_stage(*graph, to);
    impl->plan = passes::plan(graph);
    return Runnable(std::move(impl));
  });
}

Runnable::Runnable(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

size_t Runnable::num_inputs() const {
  return impl_->plan->graph().inputs().size();
}
size_t Runnable::num_outputs() const {
  return impl_->plan->graph().outputs().size();
}
std::string Runnable::input_name(size_t index) const {
  return guarded([&] {
    check_index(index, num_inputs(), "input");
    return impl_->plan->graph().input_name(index);
  });
}
std::string Runnable::output_name(size_t index) const {
  return guarded([&] {
    check_index(index, num_outputs(), "output");
    return impl_->plan->graph().output_names()[index];
  });
}
std::string Runnable::input_fact(size_t index) const {
  return guarded([&] {
    check_index(index, num_inputs(), "input");
    const Graph& g = impl_->plan->graph();
    return g.fact(g.inputs()[index]).to_string();
  });
}
std::string Runnable::output_fact(size_t index) const {
  return guarded([&] {
    check_index(index, num_outputs(), "output");
    const Graph& g = impl_->plan->graph();
    return g.fact(g.outputs()[index]).to_string();
  });
}

Session Runnable::session(const SessionOptions& options) const {
  return guarded([&] { return Session(std::make_unique<Session::Impl>(impl_, options)); });
}

std::vector<Tensor> Runnable::run(const std::vector<Tensor>& inputs) const {
  return session().run(inputs);
}

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;
Session::~Session() = default;

int Session::threads() const {
  return impl_->session.threads();
}

namespace {

std::vector<kiln::Tensor> unwrap_all(const Graph& loaded, const std::vector<Tensor>& inputs) {
  KILN_ENSURE(inputs.size() == loaded.inputs().size(), "the model has {} inputs, {} given",
              loaded.inputs().size(), inputs.size());
  std::vector<kiln::Tensor> out;
  out.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); i++) {
    KILN_ENSURE(!inputs[i].is_null(), "input {} '{}' is the null tensor", i, loaded.input_name(i));
    out.push_back(unwrap(inputs[i]));
  }
  passes::check_constant_inputs(loaded, out);
  return out;
}

std::vector<Tensor> wrap_outputs(const Graph& graph, std::vector<kiln::Tensor> outputs) {
  std::vector<Tensor> out;
  out.reserve(outputs.size());
  for (size_t i = 0; i < outputs.size(); i++) {
    from_datum_type(outputs[i].dtype(), fmt::format("output {} '{}'", i, graph.output_names()[i]));
    out.push_back(wrap(std::move(outputs[i])));
  }
  return out;
}

}  // namespace

std::vector<Tensor> Session::run(const std::vector<Tensor>& inputs) {
  return guarded([&] {
    auto outputs = impl_->session.run(unwrap_all(*impl_->runnable->loaded, inputs));
    return wrap_outputs(impl_->runnable->plan->graph(), std::move(outputs));
  });
}

std::vector<Tensor> Session::run(const std::map<std::string, Tensor>& inputs) {
  return guarded([&] {
    const Graph& loaded = *impl_->runnable->loaded;
    size_t n = loaded.inputs().size();
    std::vector<Tensor> ordered(n);
    std::string names;
    for (size_t i = 0; i < n; i++) names += " " + loaded.input_name(i);
    for (const auto& [name, tensor] : inputs) {
      size_t index = n;
      for (size_t i = 0; i < n; i++)
        if (loaded.input_name(i) == name) index = i;
      if (index == n) fail("the model has no input named '{}' (inputs:{})", name, names);
      ordered[index] = tensor;
    }
    std::string missing;
    for (size_t i = 0; i < n; i++)
      if (ordered[i].is_null())
        missing += fmt::format("\n  '{}' ({})", loaded.input_name(i),
                               loaded.fact(loaded.inputs()[i]).to_string());
    if (!missing.empty()) fail("missing model inputs:{}", missing);
    return run(ordered);
  });
}

namespace {

bool overlap(const void* a, size_t a_bytes, const void* b, size_t b_bytes) {
  auto pa = reinterpret_cast<uintptr_t>(a), pb = reinterpret_cast<uintptr_t>(b);
  return a_bytes && b_bytes && pa < pb + b_bytes && pb < pa + a_bytes;
}

// An output buffer that shares memory with an input or another output is written after the run
// (as before zero-copy), never during it: an op must not overwrite what it still reads.
bool shares_memory(const std::vector<ConstBuffer>& inputs, const std::vector<MutBuffer>& outputs,
                   size_t o) {
  const MutBuffer& b = outputs[o];
  for (const auto& in : inputs)
    if (overlap(b.data, b.nbytes, in.data, in.nbytes)) return true;
  for (size_t j = 0; j < outputs.size(); j++)
    if (j != o && overlap(b.data, b.nbytes, outputs[j].data, outputs[j].nbytes)) return true;
  return false;
}

}  // namespace

void Session::run(const std::vector<ConstBuffer>& inputs, const std::vector<MutBuffer>& outputs) {
  guarded([&] {
    const Graph& graph = impl_->runnable->plan->graph();
    const Graph& loaded = *impl_->runnable->loaded;
    KILN_ENSURE(outputs.size() == graph.outputs().size(),
                "the model has {} outputs, {} output buffers given", graph.outputs().size(),
                outputs.size());
    KILN_ENSURE(inputs.size() == loaded.inputs().size(), "the model has {} inputs, {} given",
                loaded.inputs().size(), inputs.size());
    std::vector<kiln::Tensor> in;
    in.reserve(inputs.size());
    for (const auto& b : inputs) {
      // Read in place: ops never write their inputs (the const_cast is never written through).
      if (kiln::Tensor::can_borrow(to_datum_type(b.dtype), b.shape, b.data, b.nbytes))
        in.push_back(kiln::Tensor::borrow(to_datum_type(b.dtype), b.shape,
                                          const_cast<void*>(b.data), b.nbytes));
      else
        in.push_back(unwrap(Tensor(b.dtype, b.shape, b.data, b.nbytes)));
    }
    passes::check_constant_inputs(loaded, in);
    std::vector<kiln::Tensor> targets(outputs.size());
    for (size_t i = 0; i < outputs.size(); i++) {
      const MutBuffer& b = outputs[i];
      // A buffer of another type is never written (the check after the run names both).
      const Fact& fact = graph.fact(graph.outputs()[i]);
      if (fact.dt == to_datum_type(b.dtype) &&
          kiln::Tensor::can_borrow(fact.dt, b.shape, b.data, b.nbytes) &&
          !shares_memory(inputs, outputs, i))
        targets[i] = kiln::Tensor::borrow(fact.dt, b.shape, b.data, b.nbytes);
    }
    std::vector<kiln::Tensor> results;
    impl_->session.run(in, results, targets);
    for (size_t i = 0; i < results.size(); i++) {
      const kiln::Tensor& r = results[i];
      const MutBuffer& b = outputs[i];
      from_datum_type(r.dtype(), fmt::format("output {} '{}'", i, graph.output_names()[i]));
      KILN_ENSURE(
          to_datum_type(b.dtype) == r.dtype() && b.shape == r.shape() && b.nbytes == r.nbytes(),
          "output {} '{}' is {},{} ({} bytes): the buffer given is {},{} ({} bytes)", i,
          graph.output_names()[i], shape_to_string(r.shape()), name_of(r.dtype()), r.nbytes(),
          shape_to_string(b.shape), data_type_name(b.dtype), b.nbytes);
      KILN_ENSURE(b.data != nullptr || b.nbytes == 0, "output {} '{}': the buffer is null", i,
                  graph.output_names()[i]);
      // Written in place unless the output is a view of something else (an input, a constant,
      // part of another buffer: memmove, as that may be this very buffer).
      if (b.nbytes && r.raw_data() != b.data) std::memmove(b.data, r.raw_data(), b.nbytes);
    }
  });
}

void Session::run_into(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs) {
  guarded([&] {
    std::vector<ConstBuffer> in;
    for (size_t i = 0; i < inputs.size(); i++) {
      const Tensor& t = inputs[i];
      KILN_ENSURE(!t.is_null(), "input {} is the null tensor", i);
      in.push_back({t.dtype(), t.shape(), t.data(), t.nbytes()});
    }
    std::vector<MutBuffer> out;
    for (size_t i = 0; i < outputs.size(); i++) {
      Tensor t = outputs[i];
      KILN_ENSURE(!t.is_null(), "output {} is the null tensor", i);
      out.push_back({t.dtype(), t.shape(), t.data(), t.nbytes()});
    }
    run(in, out);
  });
}

std::vector<NodeProfile> Session::profile(const std::vector<Tensor>& inputs, int runs,
                                          double* total_ms) {
  return guarded([&] {
    KILN_ENSURE(runs > 0, "profile: runs must be positive, got {}", runs);
    auto in = unwrap_all(*impl_->runnable->loaded, inputs);
    const Graph& graph = impl_->runnable->plan->graph();
    std::map<int, double> ns;
    auto timer = [&](int node, std::chrono::nanoseconds elapsed) {
      ns[node] += static_cast<double>(elapsed.count());
    };
    auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < runs; r++) impl_->session.run_timed(in, timer);
    double total =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (total_ms) *total_ms = total / runs;
    std::vector<NodeProfile> out;
    for (const auto& [node, t] : ns)
      out.push_back({graph.node(node).name, graph.node(node).op ? graph.node(node).op->name() : "",
                     t / 1e6 / runs});
    std::stable_sort(out.begin(), out.end(),
                     [](const NodeProfile& a, const NodeProfile& b) { return a.ms > b.ms; });
    return out;
  });
}

}  // namespace kiln::api
