// kiln's public C++ API: load a model (ONNX, TensorFlow GraphDef, NNEF) from a file or from
// memory, give its input facts, optimize it once, and run it from any number of sessions.
//
//   kiln::api::Model model = kiln::api::Model::load("mobilenet_v2.onnx");
//   model.set_input_fact("1,3,224,224,f32");               // the CLI's -i syntax
//   kiln::api::Runnable runnable = model.optimize();       // immutable, shared by sessions
//   kiln::api::Session session = runnable.session();      // one per thread
//   std::vector<kiln::api::Tensor> outputs = session.run({input});
//
// Every error is a kiln::Error (kiln/error.h) whose what() is the message the `kiln` command
// prints for the same mistake. Classes are cheap handles: copying a Model copies its graph (the
// weights are shared), copying a Runnable or a Tensor shares it. A Runnable is immutable and
// thread-safe; a Session is one running instance and must be used by one thread at a time.
//
// libkiln exports exactly what this header and kiln/kiln.h declare (docs/api.md: versioning).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kiln/error.h"
#include "kiln/export.h"

namespace kiln::api {

// "0.1.0": the version of libkiln.
KILN_API std::string version();

// Element types the API moves in and out of models (values match kiln.h's kiln_datum_type).
enum class DataType : int {
  F32 = 1,
  F64 = 2,
  F16 = 3,
  I8 = 4,
  I16 = 5,
  I32 = 6,
  I64 = 7,
  U8 = 8,
  U16 = 9,
  U32 = 10,
  U64 = 11,
  Bool = 12,
};
// "f32", "i64", "bool"...
KILN_API const char* data_type_name(DataType dt);
// Bytes per element.
KILN_API size_t data_type_size(DataType dt);

template <typename T>
struct DataTypeOf;
template <>
struct DataTypeOf<float> {
  static constexpr DataType value = DataType::F32;
};
template <>
struct DataTypeOf<double> {
  static constexpr DataType value = DataType::F64;
};
template <>
struct DataTypeOf<int8_t> {
  static constexpr DataType value = DataType::I8;
};
template <>
struct DataTypeOf<int16_t> {
  static constexpr DataType value = DataType::I16;
};
template <>
struct DataTypeOf<int32_t> {
  static constexpr DataType value = DataType::I32;
};
template <>
struct DataTypeOf<int64_t> {
  static constexpr DataType value = DataType::I64;
};
template <>
struct DataTypeOf<uint8_t> {
  static constexpr DataType value = DataType::U8;
};
template <>
struct DataTypeOf<uint16_t> {
  static constexpr DataType value = DataType::U16;
};
template <>
struct DataTypeOf<uint32_t> {
  static constexpr DataType value = DataType::U32;
};
template <>
struct DataTypeOf<uint64_t> {
  static constexpr DataType value = DataType::U64;
};
template <>
struct DataTypeOf<bool> {
  static constexpr DataType value = DataType::Bool;
};

// A dense, row-major tensor in 64-byte aligned storage owned by kiln. Copies share the storage.
class KILN_API Tensor {
 public:
  Tensor();  // the null tensor
  // Zeros of that type and shape.
  Tensor(DataType dt, const std::vector<int64_t>& shape);
  // A copy of `nbytes` bytes at `data` (must be exactly numel * data_type_size(dt)).
  Tensor(DataType dt, const std::vector<int64_t>& shape, const void* data, size_t nbytes);
  template <typename T>
  static Tensor from_vector(const std::vector<int64_t>& shape, const std::vector<T>& values) {
    return Tensor(DataTypeOf<T>::value, shape, values.data(), values.size() * sizeof(T));
  }
  // A tensor over the caller's memory, no copy: `nbytes` exactly the shape's size, `data`
  // aligned to the element size (throws kiln::Error otherwise). The caller keeps the memory
  // alive while the tensor (or a copy of the handle) is in use; kiln never frees it. Given to
  // Session::run as an input, it is read in place (kiln never writes its inputs).
  static Tensor wrap(DataType dt, const std::vector<int64_t>& shape, void* data, size_t nbytes);

  bool is_null() const;
  DataType dtype() const;
  std::vector<int64_t> shape() const;
  int64_t numel() const;
  size_t nbytes() const;
  const void* data() const;
  void* data();
  // The elements as T; throws kiln::Error when T is not the tensor's type.
  template <typename T>
  const T* data_as() const {
    check_type(DataTypeOf<T>::value);
    return static_cast<const T*>(data());
  }
  template <typename T>
  std::vector<T> to_vector() const {
    const T* p = data_as<T>();
    return std::vector<T>(p, p + numel());
  }
  // "1,1000,f32 [0.1, 0.2, ...]": at most max_values elements.
  std::string to_string(size_t max_values = 8) const;

  struct Impl;
  explicit Tensor(std::shared_ptr<Impl> impl);
  const std::shared_ptr<Impl>& impl() const { return impl_; }

 private:
  void check_type(DataType requested) const;
  std::shared_ptr<Impl> impl_;
};

// Reads a tensor file: .npy, or .pb (an ONNX TensorProto, as in test_data_set_N/input_0.pb).
KILN_API Tensor read_tensor(const std::string& path);
// Writes a tensor as .npy.
KILN_API void write_npy(const std::string& path, const Tensor& tensor);

// Caller-owned memory for Session::run: read-only inputs, outputs the session writes into.
struct ConstBuffer {
  DataType dtype = DataType::F32;
  std::vector<int64_t> shape;
  const void* data = nullptr;
  size_t nbytes = 0;
};
struct MutBuffer {
  DataType dtype = DataType::F32;
  std::vector<int64_t> shape;
  void* data = nullptr;
  size_t nbytes = 0;
};

enum class Format { Auto, Onnx, TensorFlow, Nnef };

struct LoadOptions {
  Format format = Format::Auto;  // Auto: from the file name (.onnx, .pb, .nnef.tgz, a folder)
  // TensorFlow only (the CLI's --input-node / --output-node): feed these nodes instead of
  // computing them; take these nodes' outputs as the model outputs.
  std::vector<std::string> input_nodes;
  std::vector<std::string> output_nodes;
};

// How far Model::prepare takes the model before planning it.
enum class Stage { Typed, Declutter, Optimize };

class Runnable;
class Session;
class PulsedRunnable;
class StreamSession;

// A model as loaded, before optimization: its inputs' facts can still change.
class KILN_API Model {
 public:
  static Model load(const std::string& path, const LoadOptions& options = {});
  // The bytes of a .onnx file, a GraphDef or an NNEF .tgz/.tar; `name` names it in errors.
  // `format` must not be Auto.
  static Model load_from_memory(const void* data, size_t size, Format format,
                                const std::string& name = "model", const LoadOptions& options = {});

  size_t num_inputs() const;
  size_t num_outputs() const;
  std::string input_name(size_t index) const;
  std::string output_name(size_t index) const;
  // The fact of input `index` as text: "1,S,40,f32" (letters are symbols).
  std::string input_fact(size_t index) const;

  // One input fact in the CLI's -i syntax: "name:1,3,224,224,f32", "name:i64=16000" (a
  // constant the passes fold), or "1,3,224,224,f32" for the next input by position (positions
  // count from the first set_input_fact call without a name).
  void set_input_fact(const std::string& spec);
  // Input `index`'s fact: "1,S,40,f32".
  void set_input_fact(size_t index, const std::string& fact);

  // Writes the decluttered model as NNEF (a .tgz/.tar archive or a directory), as
  // `kiln convert` does; `strict`: standard NNEF operations only.
  void save_nnef(const std::string& path, bool strict = false) const;

  // Declutters, optimizes for this CPU and plans: the model stays as it is.
  Runnable optimize() const;
  // Takes the model to `stage` and plans it (Typed: runs the ops as loaded).
  Runnable prepare(Stage stage) const;
  // Streaming (docs/streaming.md), as `kiln run --pulse`: `pulse` is "8" (P frames per call
  // along the only symbol of the input facts) or "S=8". The input facts must be symbolic along
  // the stream axis (e.g. "1,40,S,f32").
  PulsedRunnable pulse(const std::string& pulse) const;

  struct Impl;

 private:
  explicit Model(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

struct SessionOptions {
  int threads = 0;  // threads of the session's kernels, the caller's included; <= 0: the cores
};

// An optimized, planned model: immutable, shared by every session made from it (from any
// thread).
class KILN_API Runnable {
 public:
  size_t num_inputs() const;
  size_t num_outputs() const;
  std::string input_name(size_t index) const;
  std::string output_name(size_t index) const;
  std::string input_fact(size_t index) const;
  std::string output_fact(size_t index) const;

  Session session(const SessionOptions& options = {}) const;
  // One run in a fresh session.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs) const;

  struct Impl;

 private:
  friend class Model;
  explicit Runnable(std::shared_ptr<const Impl> impl);
  std::shared_ptr<const Impl> impl_;
};

// A pulsed (streaming) model, optimized and planned: immutable, shared by its StreamSessions.
class KILN_API PulsedRunnable {
 public:
  int64_t pulse() const;  // frames of each streaming input per push
  // Frames output `index` lags the whole-input model by.
  int64_t delay(size_t output) const;
  size_t num_inputs() const;
  size_t num_outputs() const;
  std::string input_name(size_t index) const;
  std::string output_name(size_t index) const;
  StreamSession stream_session(const SessionOptions& options = {}) const;

  struct Impl;

 private:
  friend class Model;
  explicit PulsedRunnable(std::shared_ptr<const Impl> impl);
  std::shared_ptr<const Impl> impl_;
};

// A streaming session: push() P frames at a time, get P frames of each output (delayed by
// delay(i) frames); or run_whole() a whole input. One thread at a time.
class KILN_API StreamSession {
 public:
  StreamSession(StreamSession&&) noexcept;
  StreamSession& operator=(StreamSession&&) noexcept;
  ~StreamSession();

  std::vector<Tensor> push(const std::vector<Tensor>& inputs);
  // The whole inputs cut into pulses and pushed, outputs concatenated without their delay: the
  // whole-input model's outputs. Resets first.
  std::vector<Tensor> run_whole(const std::vector<Tensor>& inputs);
  // Back to the stream start.
  void reset();
  // The stream's length in frames once known (the padding at its end needs it).
  void set_stream_length(int64_t frames);
  int64_t pulses() const;  // pushes since the start

  struct Impl;

 private:
  friend class PulsedRunnable;
  explicit StreamSession(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Per-node timings of one run (Session::profile).
struct NodeProfile {
  std::string name;  // node name
  std::string op;    // operation
  double ms = 0;     // mean time per run
};

// One running instance of a Runnable: its memory arena, kernel scratch and thread pool. Use it
// from one thread at a time; run it many times (steady-state runs allocate nothing).
class KILN_API Session {
 public:
  Session(Session&&) noexcept;
  Session& operator=(Session&&) noexcept;
  ~Session();

  // Inputs in the model's order; outputs in the model's order.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs);
  // Inputs by name (every input once).
  std::vector<Tensor> run(const std::map<std::string, Tensor>& inputs);
  // Caller-owned memory: inputs are read, outputs written into `outputs` (one per model output,
  // shape and type exactly the output's: an error says what the output is otherwise). No copy
  // when the layouts match: an input whose data is aligned to its element size is read in
  // place, and the op computing an output writes straight into its buffer when that output is
  // a buffer of its own (not a view of an input or a constant: then one copy). The session
  // keeps no reference to the buffers after it returns, even when it throws.
  void run(const std::vector<ConstBuffer>& inputs, const std::vector<MutBuffer>& outputs);
  // As run(buffers), into existing tensors (Tensor::wrap or allocated), outputs.size() = the
  // model's output count, each of the output's type and shape.
  void run_into(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs);
  // Runs `runs` times and returns the mean time per node, slowest first, and the mean total.
  std::vector<NodeProfile> profile(const std::vector<Tensor>& inputs, int runs, double* total_ms);

  int threads() const;

  struct Impl;

 private:
  friend class Runnable;
  explicit Session(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kiln::api
