// kiln::api::PulsedRunnable and StreamSession: the streaming setup of `kiln run --pulse`
// (declutter, passes::pulsify, optimize, plan) and core's StreamSession behind handles.
#include "api/api_internal.h"
#include "core/stream_session.h"
#include "passes/pipeline.h"
#include "passes/pulse/pulsify.h"

namespace kiln::api {

struct PulsedRunnable::Impl {
  std::shared_ptr<const Graph> loaded;  // the load-stage graph: input names, constant inputs
  PlanPtr plan;
  StreamSpec spec;
};

struct StreamSession::Impl {
  std::shared_ptr<const PulsedRunnable::Impl> runnable;
  kiln::StreamSession stream;
  Impl(std::shared_ptr<const PulsedRunnable::Impl> r, SessionOptions options)
      : runnable(std::move(r)),
        stream(runnable->plan, runnable->spec, kiln::SessionOptions{options.threads}) {}
};

namespace {

std::vector<kiln::Tensor> unwrap_inputs(const Graph& loaded, const std::vector<Tensor>& inputs) {
  KILN_ENSURE(inputs.size() == loaded.inputs().size(), "the model has {} inputs, {} given",
              loaded.inputs().size(), inputs.size());
  std::vector<kiln::Tensor> out;
  for (size_t i = 0; i < inputs.size(); i++) {
    KILN_ENSURE(!inputs[i].is_null(), "input {} '{}' is the null tensor", i, loaded.input_name(i));
    out.push_back(unwrap(inputs[i]));
  }
  passes::check_constant_inputs(loaded, out);
  return out;
}

std::vector<Tensor> wrap_all(const Graph& loaded, std::vector<kiln::Tensor> outputs) {
  std::vector<Tensor> out;
  for (size_t i = 0; i < outputs.size(); i++) {
    from_datum_type(outputs[i].dtype(), fmt::format("output {} '{}'", i, loaded.output_names()[i]));
    out.push_back(wrap(std::move(outputs[i])));
  }
  return out;
}

}  // namespace

PulsedRunnable Model::pulse(const std::string& pulse) const {
  return guarded([&] {
    auto impl = std::make_shared<PulsedRunnable::Impl>();
    impl->loaded = std::make_shared<const Graph>(*impl_->graph);
    Graph graph = *impl_->graph;
    passes::run_to_stage(graph, passes::Stage::Declutter);
    passes::PulsedModel pulsed = passes::pulsify(graph, passes::parse_pulse(pulse));
    passes::optimize(*pulsed.graph);
    impl->plan = passes::plan(pulsed.graph);
    impl->spec = pulsed.spec;
    return PulsedRunnable(std::move(impl));
  });
}

PulsedRunnable::PulsedRunnable(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
int64_t PulsedRunnable::pulse() const {
  return impl_->spec.pulse;
}
int64_t PulsedRunnable::delay(size_t output) const {
  return guarded([&] {
    KILN_ENSURE(output < impl_->spec.outputs.size(),
                "output {} out of range: the model has {} outputs", output,
                impl_->spec.outputs.size());
    return impl_->spec.outputs[output].delay;
  });
}
size_t PulsedRunnable::num_inputs() const {
  return impl_->loaded->inputs().size();
}
size_t PulsedRunnable::num_outputs() const {
  return impl_->loaded->outputs().size();
}
std::string PulsedRunnable::input_name(size_t index) const {
  return guarded([&] {
    KILN_ENSURE(index < num_inputs(), "input {} out of range: the model has {} inputs", index,
                num_inputs());
    return impl_->loaded->input_name(index);
  });
}
std::string PulsedRunnable::output_name(size_t index) const {
  return guarded([&] {
    KILN_ENSURE(index < num_outputs(), "output {} out of range: the model has {} outputs", index,
                num_outputs());
    return impl_->loaded->output_names()[index];
  });
}
StreamSession PulsedRunnable::stream_session(const SessionOptions& options) const {
  return guarded(
      [&] { return StreamSession(std::make_unique<StreamSession::Impl>(impl_, options)); });
}

StreamSession::StreamSession(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
StreamSession::StreamSession(StreamSession&&) noexcept = default;
StreamSession& StreamSession::operator=(StreamSession&&) noexcept = default;
StreamSession::~StreamSession() = default;

std::vector<Tensor> StreamSession::push(const std::vector<Tensor>& inputs) {
  return guarded([&] {
    const Graph& loaded = *impl_->runnable->loaded;
    return wrap_all(loaded, impl_->stream.push(unwrap_inputs(loaded, inputs)));
  });
}
std::vector<Tensor> StreamSession::run_whole(const std::vector<Tensor>& inputs) {
  return guarded([&] {
    const Graph& loaded = *impl_->runnable->loaded;
    return wrap_all(loaded, impl_->stream.run_whole(unwrap_inputs(loaded, inputs)));
  });
}
void StreamSession::reset() {
  guarded([&] { impl_->stream.reset(); });
}
void StreamSession::set_stream_length(int64_t frames) {
  guarded([&] { impl_->stream.set_stream_length(frames); });
}
int64_t StreamSession::pulses() const {
  return impl_->stream.pulses();
}

}  // namespace kiln::api
