// The C API (include/kiln/kiln.h) over the C++ API: handles own C++ objects plus the strings
// they hand out; every failure becomes a status and this thread's last error.
#include "kiln/kiln.h"

#include <fmt/format.h>

#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <new>
#include <optional>

#include "api/api_internal.h"

using namespace kiln::api;

// Names and facts handed out as const char*: kept (stable addresses) as long as the handle; the
// same text for the same question is handed out once.
struct HandedOut {
  std::mutex mutex;  // a kiln_runnable is shared between threads
  std::deque<std::string> strings;
  std::map<std::string, const char*> by_key;
  const char* keep(const std::string& key, std::string value) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = by_key.find(key);
    if (it != by_key.end() && value == it->second) return it->second;
    const char* p = strings.emplace_back(std::move(value)).c_str();
    by_key[key] = p;
    return p;
  }
};
struct kiln_model {
  Model model;
  HandedOut strings;
};
struct kiln_runnable {
  Runnable runnable;
  HandedOut strings;
};
struct kiln_session {
  Session session;
  std::string profile;
};
struct kiln_tensor {
  Tensor tensor;
  std::vector<int64_t> shape;
};
struct kiln_pulsed_runnable {
  PulsedRunnable pulsed;
  HandedOut strings;
};
struct kiln_stream_session {
  StreamSession stream;
};

namespace {

thread_local std::string last_error;

kiln_status failed(kiln_status status, std::string message) {
  last_error = std::move(message);
  return status;
}

// Runs f (which returns nothing); maps exceptions to a status and the last error.
template <typename F>
kiln_status call(F&& f) {
  try {
    f();
    return KILN_OK;
  } catch (const kiln::Error& e) {
    return failed(KILN_ERROR, e.chain());
  } catch (const std::bad_alloc&) {
    return failed(KILN_ERROR, "out of memory");
  } catch (const std::exception& e) {
    return failed(KILN_ERROR, e.what());
  } catch (...) {
    return failed(KILN_ERROR, "unknown error");
  }
}

#define KILN_C_REQUIRE(ptr)                                                               \
  do {                                                                                    \
    if ((ptr) == nullptr)                                                                 \
      return failed(KILN_INVALID_ARGUMENT, std::string(__func__) + ": " #ptr " is NULL"); \
  } while (0)

std::optional<Format> parse_format(const char* format) {
  if (!format) return Format::Auto;
  std::string f = format;
  if (f == "onnx") return Format::Onnx;
  if (f == "tf" || f == "tensorflow") return Format::TensorFlow;
  if (f == "nnef") return Format::Nnef;
  return std::nullopt;
}

kiln_status bad_format(const char* format) {
  return failed(KILN_INVALID_ARGUMENT,
                fmt::format("unknown model format '{}' (expected onnx, tf or nnef)", format));
}

template <typename Handle>
kiln_status check_index(const Handle* h, size_t index, size_t count, const char* what) {
  if (index >= count)
    return failed(KILN_INVALID_ARGUMENT, fmt::format("{} {} out of range: the model has {} {}s",
                                                     what, index, count, what));
  return KILN_OK;
}

template <typename Handle, typename Get>
kiln_status hand_out(Handle* h, const char* what, size_t index, const char** out, Get&& get) {
  return call([&] { *out = h->strings.keep(fmt::format("{} {}", what, index), get()); });
}

// The tensors of a caller's array `what` ("inputs", "outputs") of n handles.
kiln_status collect_tensors(const kiln_tensor* const* tensors, size_t n, const char* what,
                            std::vector<Tensor>& out) {
  if (n > 0 && tensors == nullptr)
    return failed(KILN_INVALID_ARGUMENT, fmt::format("{} is NULL", what));
  for (size_t i = 0; i < n; i++) {
    if (!tensors[i]) return failed(KILN_INVALID_ARGUMENT, fmt::format("{}[{}] is NULL", what, i));
    out.push_back(tensors[i]->tensor);
  }
  return KILN_OK;
}

kiln_status collect_inputs(const kiln_tensor* const* inputs, size_t n, std::vector<Tensor>& out) {
  return collect_tensors(inputs, n, "inputs", out);
}

// The shape pointer and type code of kiln_tensor_create / kiln_tensor_wrap.
kiln_status check_tensor_args(kiln_datum_type dt, const int64_t* shape, size_t rank) {
  if (rank > 0 && shape == nullptr) return failed(KILN_INVALID_ARGUMENT, "shape is NULL");
  if (dt < KILN_F32 || dt > KILN_BOOL)
    return failed(KILN_INVALID_ARGUMENT, fmt::format("unknown datum type code {}", int(dt)));
  return KILN_OK;
}

// Writes one new kiln_tensor per result into outputs[0..num_outputs) (all or none).
kiln_status hand_out_tensors(std::vector<Tensor>& results, kiln_tensor** outputs,
                             size_t num_outputs) {
  if (results.size() != num_outputs)
    return failed(KILN_INVALID_ARGUMENT, fmt::format("the model has {} outputs, room for {} given",
                                                     results.size(), num_outputs));
  return call([&] {
    std::vector<std::unique_ptr<kiln_tensor>> made;
    for (auto& r : results) {
      auto shape = r.shape();
      made.push_back(std::make_unique<kiln_tensor>(kiln_tensor{std::move(r), std::move(shape)}));
    }
    for (size_t i = 0; i < made.size(); i++) outputs[i] = made[i].release();
  });
}

}  // namespace

extern "C" {

const char* kiln_last_error(void) {
  return last_error.c_str();
}

const char* kiln_version(void) {
  static const std::string v = version();
  return v.c_str();
}

const char* kiln_datum_type_name(kiln_datum_type dt) {
  if (dt < KILN_F32 || dt > KILN_BOOL) return nullptr;
  return data_type_name(static_cast<DataType>(dt));
}

size_t kiln_datum_type_size(kiln_datum_type dt) {
  if (dt < KILN_F32 || dt > KILN_BOOL) return 0;
  return data_type_size(static_cast<DataType>(dt));
}

kiln_status kiln_model_load(const char* path, const char* format, kiln_model** out) {
  KILN_C_REQUIRE(path);
  KILN_C_REQUIRE(out);
  auto f = parse_format(format);
  if (!f) return bad_format(format);
  return call([&] {
    LoadOptions options;
    options.format = *f;
    *out = new kiln_model{Model::load(path, options), {}};
  });
}

kiln_status kiln_model_load_memory(const void* data, size_t size, const char* format,
                                   kiln_model** out) {
  KILN_C_REQUIRE(data);
  KILN_C_REQUIRE(format);
  KILN_C_REQUIRE(out);
  auto f = parse_format(format);
  if (!f) return bad_format(format);
  return call([&] { *out = new kiln_model{Model::load_from_memory(data, size, *f), {}}; });
}

void kiln_model_destroy(kiln_model* model) {
  delete model;
}

kiln_status kiln_model_num_inputs(const kiln_model* model, size_t* out) {
  KILN_C_REQUIRE(model);
  KILN_C_REQUIRE(out);
  *out = model->model.num_inputs();
  return KILN_OK;
}

kiln_status kiln_model_num_outputs(const kiln_model* model, size_t* out) {
  KILN_C_REQUIRE(model);
  KILN_C_REQUIRE(out);
  *out = model->model.num_outputs();
  return KILN_OK;
}

kiln_status kiln_model_input_name(const kiln_model* model, size_t index, const char** out) {
  KILN_C_REQUIRE(model);
  KILN_C_REQUIRE(out);
  if (auto s = check_index(model, index, model->model.num_inputs(), "input")) return s;
  auto* m = const_cast<kiln_model*>(model);
  return hand_out(m, "input_name", index, out, [&] { return m->model.input_name(index); });
}

kiln_status kiln_model_output_name(const kiln_model* model, size_t index, const char** out) {
  KILN_C_REQUIRE(model);
  KILN_C_REQUIRE(out);
  if (auto s = check_index(model, index, model->model.num_outputs(), "output")) return s;
  auto* m = const_cast<kiln_model*>(model);
  return hand_out(m, "output_name", index, out, [&] { return m->model.output_name(index); });
}

kiln_status kiln_model_input_fact(const kiln_model* model, size_t index, const char** out) {
  KILN_C_REQUIRE(model);
  KILN_C_REQUIRE(out);
  if (auto s = check_index(model, index, model->model.num_inputs(), "input")) return s;
  auto* m = const_cast<kiln_model*>(model);
  return hand_out(m, "input_fact", index, out, [&] { return m->model.input_fact(index); });
}

kiln_status kiln_model_set_input_fact(kiln_model* model, const char* spec) {
  KILN_C_REQUIRE(model);
  KILN_C_REQUIRE(spec);
  return call([&] { model->model.set_input_fact(std::string(spec)); });
}

kiln_status kiln_model_save_nnef(const kiln_model* model, const char* path) {
  KILN_C_REQUIRE(model);
  KILN_C_REQUIRE(path);
  return call([&] { model->model.save_nnef(path); });
}

kiln_status kiln_model_optimize(const kiln_model* model, kiln_runnable** out) {
  return kiln_model_prepare(model, 1, out);
}

kiln_status kiln_model_prepare(const kiln_model* model, int optimize, kiln_runnable** out) {
  KILN_C_REQUIRE(model);
  KILN_C_REQUIRE(out);
  return call([&] {
    *out = new kiln_runnable{model->model.prepare(optimize ? Stage::Optimize : Stage::Typed), {}};
  });
}

void kiln_runnable_destroy(kiln_runnable* runnable) {
  delete runnable;
}

kiln_status kiln_runnable_num_inputs(const kiln_runnable* runnable, size_t* out) {
  KILN_C_REQUIRE(runnable);
  KILN_C_REQUIRE(out);
  *out = runnable->runnable.num_inputs();
  return KILN_OK;
}

kiln_status kiln_runnable_num_outputs(const kiln_runnable* runnable, size_t* out) {
  KILN_C_REQUIRE(runnable);
  KILN_C_REQUIRE(out);
  *out = runnable->runnable.num_outputs();
  return KILN_OK;
}

#define KILN_C_RUNNABLE_STRING(fn, count, getter, what)                                    \
  kiln_status fn(const kiln_runnable* runnable, size_t index, const char** out) {          \
    KILN_C_REQUIRE(runnable);                                                              \
    KILN_C_REQUIRE(out);                                                                   \
    if (auto s = check_index(runnable, index, runnable->runnable.count(), what)) return s; \
    auto* r = const_cast<kiln_runnable*>(runnable);                                        \
    return hand_out(r, #getter, index, out, [&] { return r->runnable.getter(index); });    \
  }
KILN_C_RUNNABLE_STRING(kiln_runnable_input_name, num_inputs, input_name, "input")
KILN_C_RUNNABLE_STRING(kiln_runnable_output_name, num_outputs, output_name, "output")
KILN_C_RUNNABLE_STRING(kiln_runnable_input_fact, num_inputs, input_fact, "input")
KILN_C_RUNNABLE_STRING(kiln_runnable_output_fact, num_outputs, output_fact, "output")

kiln_status kiln_session_create(const kiln_runnable* runnable, int threads, kiln_session** out) {
  KILN_C_REQUIRE(runnable);
  KILN_C_REQUIRE(out);
  return call([&] { *out = new kiln_session{runnable->runnable.session({threads}), {}}; });
}

void kiln_session_destroy(kiln_session* session) {
  delete session;
}

kiln_status kiln_session_run(kiln_session* session, const kiln_tensor* const* inputs,
                             size_t num_inputs, kiln_tensor** outputs, size_t num_outputs) {
  KILN_C_REQUIRE(session);
  KILN_C_REQUIRE(outputs);
  std::vector<Tensor> in;
  if (auto s = collect_inputs(inputs, num_inputs, in)) return s;
  std::vector<Tensor> results;
  if (auto s = call([&] { results = session->session.run(in); })) return s;
  return hand_out_tensors(results, outputs, num_outputs);
}

kiln_status kiln_session_run_into(kiln_session* session, const kiln_tensor* const* inputs,
                                  size_t num_inputs, kiln_tensor* const* outputs,
                                  size_t num_outputs) {
  KILN_C_REQUIRE(session);
  std::vector<Tensor> in, out;
  if (auto s = collect_inputs(inputs, num_inputs, in)) return s;
  if (auto s = collect_tensors(outputs, num_outputs, "outputs", out)) return s;
  return call([&] { session->session.run_into(in, out); });
}

kiln_status kiln_session_profile(kiln_session* session, const kiln_tensor* const* inputs,
                                 size_t num_inputs, int runs, const char** out) {
  KILN_C_REQUIRE(session);
  KILN_C_REQUIRE(out);
  std::vector<Tensor> in;
  if (auto s = collect_inputs(inputs, num_inputs, in)) return s;
  return call([&] {
    double total = 0;
    auto nodes = session->session.profile(in, runs, &total);
    auto quote = [](const std::string& s) {
      std::string q = "\"";
      for (char c : s) {
        if (c == '"' || c == '\\') {
          q += '\\';
          q += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
          q += fmt::format("\\u{:04x}", static_cast<int>(c));
        } else {
          q += c;
        }
      }
      return q + "\"";
    };
    std::string json = fmt::format("{{\"total_ms\": {}, \"nodes\": [", total);
    for (size_t i = 0; i < nodes.size(); i++)
      json += fmt::format("{}{{\"name\": {}, \"op\": {}, \"ms\": {}}}", i ? ", " : "",
                          quote(nodes[i].name), quote(nodes[i].op), nodes[i].ms);
    session->profile = json + "]}";
    *out = session->profile.c_str();
  });
}

kiln_status kiln_model_pulse(const kiln_model* model, const char* pulse,
                             kiln_pulsed_runnable** out) {
  KILN_C_REQUIRE(model);
  KILN_C_REQUIRE(pulse);
  KILN_C_REQUIRE(out);
  return call([&] { *out = new kiln_pulsed_runnable{model->model.pulse(pulse), {}}; });
}

void kiln_pulsed_runnable_destroy(kiln_pulsed_runnable* pulsed) {
  delete pulsed;
}

kiln_status kiln_pulsed_runnable_pulse(const kiln_pulsed_runnable* pulsed, int64_t* out) {
  KILN_C_REQUIRE(pulsed);
  KILN_C_REQUIRE(out);
  *out = pulsed->pulsed.pulse();
  return KILN_OK;
}

kiln_status kiln_pulsed_runnable_delay(const kiln_pulsed_runnable* pulsed, size_t output,
                                       int64_t* out) {
  KILN_C_REQUIRE(pulsed);
  KILN_C_REQUIRE(out);
  if (auto s = check_index(pulsed, output, pulsed->pulsed.num_outputs(), "output")) return s;
  return call([&] { *out = pulsed->pulsed.delay(output); });
}

kiln_status kiln_pulsed_runnable_num_inputs(const kiln_pulsed_runnable* pulsed, size_t* out) {
  KILN_C_REQUIRE(pulsed);
  KILN_C_REQUIRE(out);
  *out = pulsed->pulsed.num_inputs();
  return KILN_OK;
}

kiln_status kiln_pulsed_runnable_num_outputs(const kiln_pulsed_runnable* pulsed, size_t* out) {
  KILN_C_REQUIRE(pulsed);
  KILN_C_REQUIRE(out);
  *out = pulsed->pulsed.num_outputs();
  return KILN_OK;
}

kiln_status kiln_pulsed_runnable_input_name(const kiln_pulsed_runnable* pulsed, size_t index,
                                            const char** out) {
  KILN_C_REQUIRE(pulsed);
  KILN_C_REQUIRE(out);
  if (auto s = check_index(pulsed, index, pulsed->pulsed.num_inputs(), "input")) return s;
  auto* p = const_cast<kiln_pulsed_runnable*>(pulsed);
  return hand_out(p, "input_name", index, out, [&] { return p->pulsed.input_name(index); });
}

kiln_status kiln_pulsed_runnable_output_name(const kiln_pulsed_runnable* pulsed, size_t index,
                                             const char** out) {
  KILN_C_REQUIRE(pulsed);
  KILN_C_REQUIRE(out);
  if (auto s = check_index(pulsed, index, pulsed->pulsed.num_outputs(), "output")) return s;
  auto* p = const_cast<kiln_pulsed_runnable*>(pulsed);
  return hand_out(p, "output_name", index, out, [&] { return p->pulsed.output_name(index); });
}

kiln_status kiln_stream_session_create(const kiln_pulsed_runnable* pulsed, int threads,
                                       kiln_stream_session** out) {
  KILN_C_REQUIRE(pulsed);
  KILN_C_REQUIRE(out);
  return call([&] { *out = new kiln_stream_session{pulsed->pulsed.stream_session({threads})}; });
}

void kiln_stream_session_destroy(kiln_stream_session* stream) {
  delete stream;
}

kiln_status kiln_stream_session_push(kiln_stream_session* stream, const kiln_tensor* const* inputs,
                                     size_t num_inputs, kiln_tensor** outputs, size_t num_outputs) {
  KILN_C_REQUIRE(stream);
  KILN_C_REQUIRE(outputs);
  std::vector<Tensor> in;
  if (auto s = collect_inputs(inputs, num_inputs, in)) return s;
  std::vector<Tensor> results;
  if (auto s = call([&] { results = stream->stream.push(in); })) return s;
  return hand_out_tensors(results, outputs, num_outputs);
}

kiln_status kiln_stream_session_run_whole(kiln_stream_session* stream,
                                          const kiln_tensor* const* inputs, size_t num_inputs,
                                          kiln_tensor** outputs, size_t num_outputs) {
  KILN_C_REQUIRE(stream);
  KILN_C_REQUIRE(outputs);
  std::vector<Tensor> in;
  if (auto s = collect_inputs(inputs, num_inputs, in)) return s;
  std::vector<Tensor> results;
  if (auto s = call([&] { results = stream->stream.run_whole(in); })) return s;
  return hand_out_tensors(results, outputs, num_outputs);
}

kiln_status kiln_stream_session_reset(kiln_stream_session* stream) {
  KILN_C_REQUIRE(stream);
  return call([&] { stream->stream.reset(); });
}

kiln_status kiln_stream_session_set_stream_length(kiln_stream_session* stream, int64_t frames) {
  KILN_C_REQUIRE(stream);
  return call([&] { stream->stream.set_stream_length(frames); });
}

kiln_status kiln_stream_session_pulses(const kiln_stream_session* stream, int64_t* out) {
  KILN_C_REQUIRE(stream);
  KILN_C_REQUIRE(out);
  *out = stream->stream.pulses();
  return KILN_OK;
}

kiln_status kiln_tensor_create(kiln_datum_type dt, const int64_t* shape, size_t rank,
                               const void* data, size_t nbytes, kiln_tensor** out) {
  KILN_C_REQUIRE(out);
  if (auto s = check_tensor_args(dt, shape, rank)) return s;
  return call([&] {
    std::vector<int64_t> dims(shape, shape + rank);
    Tensor t = data ? Tensor(static_cast<DataType>(dt), dims, data, nbytes)
                    : Tensor(static_cast<DataType>(dt), dims);
    *out = new kiln_tensor{std::move(t), std::move(dims)};
  });
}

kiln_status kiln_tensor_wrap(kiln_datum_type dt, const int64_t* shape, size_t rank, void* data,
                             size_t nbytes, kiln_tensor** out) {
  KILN_C_REQUIRE(out);
  if (auto s = check_tensor_args(dt, shape, rank)) return s;
  return call([&] {
    std::vector<int64_t> dims(shape, shape + rank);
    Tensor t = Tensor::wrap(static_cast<DataType>(dt), dims, data, nbytes);
    *out = new kiln_tensor{std::move(t), std::move(dims)};
  });
}

kiln_status kiln_tensor_read(const char* path, kiln_tensor** out) {
  KILN_C_REQUIRE(path);
  KILN_C_REQUIRE(out);
  return call([&] {
    Tensor t = read_tensor(path);
    auto shape = t.shape();
    *out = new kiln_tensor{std::move(t), std::move(shape)};
  });
}

void kiln_tensor_destroy(kiln_tensor* tensor) {
  delete tensor;
}

kiln_status kiln_tensor_datum_type(const kiln_tensor* tensor, kiln_datum_type* out) {
  KILN_C_REQUIRE(tensor);
  KILN_C_REQUIRE(out);
  return call([&] { *out = static_cast<kiln_datum_type>(tensor->tensor.dtype()); });
}

kiln_status kiln_tensor_shape(const kiln_tensor* tensor, const int64_t** shape, size_t* rank) {
  KILN_C_REQUIRE(tensor);
  KILN_C_REQUIRE(shape);
  KILN_C_REQUIRE(rank);
  *shape = tensor->shape.data();
  *rank = tensor->shape.size();
  return KILN_OK;
}

kiln_status kiln_tensor_data(const kiln_tensor* tensor, void** data, size_t* nbytes) {
  KILN_C_REQUIRE(tensor);
  KILN_C_REQUIRE(data);
  KILN_C_REQUIRE(nbytes);
  *data = const_cast<Tensor&>(tensor->tensor).data();
  *nbytes = tensor->tensor.nbytes();
  return KILN_OK;
}

}  // extern "C"
