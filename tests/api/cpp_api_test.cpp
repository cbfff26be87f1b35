// The public C++ API (include/kiln/kiln.hpp) as a program embedding kiln sees it: this file
// includes only <kiln/...> and links only libkiln (tests/api/CMakeLists.txt).
#include <gtest/gtest.h>
#include <kiln/kiln.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <unistd.h>

namespace fs = std::filesystem;
using namespace kiln::api;

namespace {

fs::path shared_models() {
  if (const char* env = std::getenv("KILN_SHARED_MODELS")) return env;
  for (auto p : {fs::path(KILN_SOURCE_DIR) / ".." / "shared" / "models",
                 fs::path(KILN_SOURCE_DIR) / ".." / ".." / "shared" / "models"})
    if (fs::exists(p)) return p;
  return {};
}

fs::path shared_model(const std::string& name) {
  auto dir = shared_models();
  if (dir.empty() || !fs::exists(dir / name / "model.onnx")) return {};
  return dir / name;
}

#define REQUIRE_MODEL(var, name)                                             \
  auto var = shared_model(name);                                             \
  if (var.empty())                                                           \
  GTEST_SKIP() << "shared model " name                                       \
                  " not found: set KILN_SHARED_MODELS to the shared models " \
                  "folder (e.g. /work/shared/models)"

// Max |a - b| over the elements, after checking type and shape; fails the test on a mismatch
// beyond atol + rtol * |b|.
void expect_close(const Tensor& got, const Tensor& want, double rtol = 1e-4, double atol = 1e-5) {
  ASSERT_FALSE(got.is_null());
  ASSERT_EQ(got.dtype(), want.dtype());
  ASSERT_EQ(got.shape(), want.shape());
  ASSERT_EQ(got.dtype(), DataType::F32);
  const float* g = got.data_as<float>();
  const float* w = want.data_as<float>();
  int64_t bad = 0;
  for (int64_t i = 0; i < got.numel(); i++)
    if (!(std::fabs(g[i] - w[i]) <= atol + rtol * std::fabs(w[i]))) bad++;
  EXPECT_EQ(bad, 0) << "of " << got.numel() << " values";
}

// The message of the kiln::Error f throws ("" when it throws nothing).
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const kiln::Error& e) {
    return e.what();
  }
  return "";
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST(ApiTensor, HoldsACopyOfTheCallersData) {
  std::vector<float> v{1, 2, 3, 4, 5, 6};
  Tensor t(DataType::F32, {2, 3}, v.data(), v.size() * sizeof(float));
  v[0] = 100;  // a copy: the tensor keeps 1
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t.numel(), 6);
  EXPECT_EQ(t.nbytes(), 24u);
  EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  Tensor shared = t;  // copies share storage
  static_cast<float*>(shared.data())[1] = 7;
  EXPECT_EQ(t.data_as<float>()[1], 7);
  EXPECT_EQ(Tensor(DataType::I64, {3}).to_vector<int64_t>(), (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(std::string(data_type_name(DataType::Bool)), "bool");
  EXPECT_EQ(data_type_size(DataType::F16), 2u);
}

TEST(ApiTensor, WrongSizesAndTypesAreErrors) {
  std::vector<float> v(5);
  EXPECT_EQ(error_of([&] {
              Tensor(DataType::F32, {2, 3}, v.data(), 20);
            }),
            "a f32 tensor of shape [2,3] holds 24 bytes, 20 given");
  Tensor t = Tensor::from_vector<float>({2}, {1, 2});
  EXPECT_EQ(error_of([&] { t.data_as<int32_t>(); }), "tensor of type f32 read as i32");
  EXPECT_TRUE(Tensor().is_null());
  EXPECT_NE(error_of([] { Tensor().dtype(); }), "");
}

TEST(ApiModel, LoadErrorsCarryTheClisMessages) {
  EXPECT_EQ(error_of([] { Model::load("/nonexistent/model.onnx"); }),
            "model file '/nonexistent/model.onnx' does not exist");
  std::string junk = "not a model at all";
  EXPECT_EQ(error_of([&] {
              Model::load_from_memory(junk.data(), junk.size(), Format::Onnx, "junk.onnx");
            }),
            "'junk.onnx' is not a valid ONNX model (protobuf parse failed: truncated or not ONNX)");
  EXPECT_EQ(error_of([&] { Model::load_from_memory(junk.data(), junk.size(), Format::Auto); }),
            "'model': a model in memory needs its format (onnx, tf or nnef)");
}

TEST(ApiModel, RunsASharedModelLikeItsReference) {
  REQUIRE_MODEL(dir, "kws_tdnn");
  Model model = Model::load((dir / "model.onnx").string());
  ASSERT_EQ(model.num_inputs(), 1u);
  ASSERT_EQ(model.num_outputs(), 1u);
  Tensor input = read_tensor((dir / "test_data_set_0" / "input_0.pb").string());
  Tensor expected = read_tensor((dir / "test_data_set_0" / "output_0.pb").string());
  Runnable runnable = model.optimize();
  auto outputs = runnable.run({input});
  ASSERT_EQ(outputs.size(), 1u);
  expect_close(outputs[0], expected);
  // Unoptimized (typed stage): the same values.
  expect_close(model.prepare(Stage::Typed).run({input})[0], expected);

  // By name, and into caller-owned buffers.
  Session session = runnable.session({1});
  EXPECT_EQ(session.threads(), 1);
  expect_close(session.run(std::map<std::string, Tensor>{{model.input_name(0), input}})[0],
               expected);
  std::vector<float> out(static_cast<size_t>(expected.numel()), -1.f);
  session.run({ConstBuffer{DataType::F32, input.shape(), input.data(), input.nbytes()}},
              {MutBuffer{DataType::F32, expected.shape(), out.data(), out.size() * 4}});
  expect_close(Tensor(DataType::F32, expected.shape(), out.data(), out.size() * 4), expected);
}

// Caller buffers on every shared model: the values of run(tensors), bit for bit; inputs only
// read; nothing written past an output's end (a guard of 64 bytes follows each, in one heap
// block of the exact size, so ASan builds see overruns too).
TEST(ApiModel, BuffersGiveTheSameOutputsOnEverySharedModel) {
  fs::path dir = shared_models();
  if (dir.empty() || !fs::exists(dir)) GTEST_SKIP() << "KILN_SHARED_MODELS not set";
  int models = 0;
  std::vector<fs::path> dirs;
  for (const auto& folder : {dir, dir / "int8"})
    if (fs::exists(folder))
      for (const auto& entry : fs::directory_iterator(folder)) dirs.push_back(entry.path());
  std::sort(dirs.begin(), dirs.end());
  for (const auto& path : dirs) {
    fs::directory_entry entry(path);
    fs::path data = entry.path() / "test_data_set_0";
    if (!fs::exists(entry.path() / "model.onnx") || !fs::exists(data / "input_0.pb")) continue;
    std::string name = entry.path().filename().string();
    Model model = Model::load((entry.path() / "model.onnx").string());
    std::vector<Tensor> inputs;
    for (size_t i = 0; i < model.num_inputs(); i++)
      inputs.push_back(read_tensor((data / ("input_" + std::to_string(i) + ".pb")).string()));
    Session session = model.optimize().session({1});
    std::vector<Tensor> want = session.run(inputs);
    std::vector<std::vector<unsigned char>> in_copies, out_bufs;
    std::vector<ConstBuffer> in;
    for (const Tensor& t : inputs) {
      const auto* p = static_cast<const unsigned char*>(t.data());
      in_copies.emplace_back(p, p + t.nbytes());
    }
    for (size_t i = 0; i < inputs.size(); i++)
      in.push_back({inputs[i].dtype(), inputs[i].shape(), in_copies[i].data(), inputs[i].nbytes()});
    std::vector<MutBuffer> out;
    for (const Tensor& t : want) out_bufs.emplace_back(t.nbytes() + 64, 0xAB);
    for (size_t i = 0; i < want.size(); i++)
      out.push_back({want[i].dtype(), want[i].shape(), out_bufs[i].data(), want[i].nbytes()});
    for (int round = 0; round < 2; round++) {  // the second run reuses the first's state
      session.run(in, out);
      for (size_t i = 0; i < want.size(); i++) {
        EXPECT_EQ(std::memcmp(out_bufs[i].data(), want[i].data(), want[i].nbytes()), 0)
            << name << " output " << i;
        for (size_t k = want[i].nbytes(); k < out_bufs[i].size(); k++)
          ASSERT_EQ(out_bufs[i][k], 0xAB) << name << " output " << i << ": written past its end";
      }
      for (size_t i = 0; i < inputs.size(); i++)
        EXPECT_EQ(std::memcmp(in_copies[i].data(), inputs[i].data(), inputs[i].nbytes()), 0)
            << name << " input " << i << " was written";
    }
    // The session keeps no reference to the buffers: later runs of its own leave them alone.
    for (auto& b : out_bufs) std::fill(b.begin(), b.end(), 0x5A);
    auto again = session.run(inputs);
    for (auto& b : out_bufs)
      EXPECT_EQ(std::count(b.begin(), b.end(), 0x5A), static_cast<long>(b.size())) << name;
    for (size_t i = 0; i < want.size(); i++)
      EXPECT_EQ(std::memcmp(again[i].data(), want[i].data(), want[i].nbytes()), 0) << name;
    models++;
  }
  EXPECT_GE(models, 15);
}

// An output buffer that is also the input's memory: the output is written after the run, not
// while the op still reads the input (a transpose in place would scramble it).
TEST(ApiModel, AnOutputBufferSharingTheInputsMemory) {
  char tmpl[] = "/tmp/kiln_api_nnef_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  fs::path dir = tmpl;
  std::ofstream(dir / "graph.nnef") << "version 1.0;\n\ngraph g( x ) -> ( y )\n{\n"
                                       "  x = external<scalar>(shape = [2, 3]);\n"
                                       "  y = transpose(x, axes = [1, 0]);\n}\n";
  Session session = Model::load(dir.string()).optimize().session({1});
  fs::remove_all(dir);
  std::vector<float> buf = {1, 2, 3, 4, 5, 6};
  session.run({ConstBuffer{DataType::F32, {2, 3}, buf.data(), 24}},
              {MutBuffer{DataType::F32, {3, 2}, buf.data(), 24}});
  EXPECT_EQ(buf, std::vector<float>({1, 4, 2, 5, 3, 6}));
  // Input and output apart (the zero-copy case): the same values.
  std::vector<float> x = {1, 2, 3, 4, 5, 6}, y(6);
  session.run({ConstBuffer{DataType::F32, {2, 3}, x.data(), 24}},
              {MutBuffer{DataType::F32, {3, 2}, y.data(), 24}});
  EXPECT_EQ(y, std::vector<float>({1, 4, 2, 5, 3, 6}));
  // Misaligned memory is copied, not refused: the same values.
  std::vector<float> big(8);
  auto* odd = reinterpret_cast<unsigned char*>(big.data()) + 2;
  std::memcpy(odd, x.data(), 24);
  session.run({ConstBuffer{DataType::F32, {2, 3}, odd, 24}},
              {MutBuffer{DataType::F32, {3, 2}, y.data(), 24}});
  EXPECT_EQ(y, std::vector<float>({1, 4, 2, 5, 3, 6}));
  // Tensor::wrap and run_into: the same again, and wrap's errors.
  Tensor wx = Tensor::wrap(DataType::F32, {2, 3}, x.data(), 24);
  std::vector<float> z(6);
  Tensor wz = Tensor::wrap(DataType::F32, {3, 2}, z.data(), 24);
  EXPECT_EQ(wx.data(), x.data());
  session.run_into({wx}, {wz});
  EXPECT_EQ(z, std::vector<float>({1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(error_of([&] {
              Tensor::wrap(DataType::F32, {2, 3}, x.data(), 20);
            }),
            "a 2,3,f32 tensor is 24 bytes: 20 bytes given");
  EXPECT_NE(error_of([&] { Tensor::wrap(DataType::F32, {1}, odd, 4); }).find("not aligned to 4"),
            std::string::npos);
}

TEST(ApiModel, RunErrorsNameTheInput) {
  REQUIRE_MODEL(dir, "kws_tdnn");
  Model model = Model::load((dir / "model.onnx").string());
  Session session = model.optimize().session();
  Tensor input = read_tensor((dir / "test_data_set_0" / "input_0.pb").string());
  auto shape = input.shape();
  shape.back() += 1;
  std::string name = model.input_name(0);
  std::string wrong_shape = error_of([&] { session.run({Tensor(DataType::F32, shape)}); });
  EXPECT_NE(wrong_shape.find(name), std::string::npos) << wrong_shape;
  std::string wrong_type = error_of([&] { session.run({Tensor(DataType::I32, input.shape())}); });
  EXPECT_NE(wrong_type.find("i32"), std::string::npos) << wrong_type;
  EXPECT_EQ(error_of([&] { session.run(std::vector<Tensor>{}); }),
            "the model has 1 inputs, 0 given");
  EXPECT_EQ(error_of([&] {
              session.run(std::map<std::string, Tensor>{{"nope", input}});
            }),
            "the model has no input named 'nope' (inputs: " + name + ")");
  EXPECT_EQ(error_of([&] { model.set_input_fact("nope:1,2,f32"); }),
            "-i nope:1,2,f32: the model has no input named 'nope' (inputs: " + name + ")");
  std::string bad_fact = error_of([&] { model.set_input_fact(0, "1,,f32"); });
  EXPECT_EQ(bad_fact.rfind("-i " + name + ":1,,f32: empty dimension in fact", 0), 0u) << bad_fact;
  EXPECT_EQ(error_of([&] { model.set_input_fact(3, "1,f32"); }),
            "input 3 out of range: the model has 1 inputs");
  std::vector<float> small(3);
  std::string short_buffer = error_of([&] {
    session.run({ConstBuffer{DataType::F32, input.shape(), input.data(), input.nbytes()}},
                {MutBuffer{DataType::F32, {3}, small.data(), 12}});
  });
  EXPECT_NE(short_buffer.find("the buffer given is 3,f32 (12 bytes)"), std::string::npos)
      << short_buffer;
  // The session still runs after errors.
  EXPECT_EQ(session.run({input}).size(), 1u);
}

TEST(ApiModel, InputFactsFromMemoryAndNnefRoundTrip) {
  REQUIRE_MODEL(dir, "kws_tdnn");
  std::string bytes = read_file(dir / "model.onnx");
  Model model = Model::load_from_memory(bytes.data(), bytes.size(), Format::Onnx);
  Tensor input = read_tensor((dir / "test_data_set_0" / "input_0.pb").string());
  Tensor expected = read_tensor((dir / "test_data_set_0" / "output_0.pb").string());
  std::string fact;
  for (int64_t d : input.shape()) fact += std::to_string(d) + ",";
  model.set_input_fact(fact + "f32");
  EXPECT_EQ(model.input_fact(0), fact + "f32");
  Runnable runnable = model.optimize();
  EXPECT_EQ(runnable.input_fact(0), fact + "f32");
  expect_close(runnable.run({input})[0], expected);

  auto nnef =
      fs::temp_directory_path() / ("kiln_api_test_" + std::to_string(::getpid()) + ".nnef.tgz");
  model.save_nnef(nnef.string());
  Model reloaded = Model::load(nnef.string());
  expect_close(reloaded.optimize().run({input})[0], expected);
  std::string archive = read_file(nnef);
  Model from_memory = Model::load_from_memory(archive.data(), archive.size(), Format::Nnef);
  expect_close(from_memory.optimize().run({input})[0], expected);
  fs::remove(nnef);
}

TEST(ApiModel, TensorFlowFromFileAndMemory) {
  auto models = shared_models();
  auto pb = models / "tf-ml-kws" / "DS_CNN_S.pb";
  if (models.empty() || !fs::exists(pb)) GTEST_SKIP() << "no " << pb << " (KILN_SHARED_MODELS)";
  Model from_file = Model::load(pb.string());
  std::string bytes = read_file(pb);
  Model from_memory =
      Model::load_from_memory(bytes.data(), bytes.size(), Format::TensorFlow, "DS_CNN_S.pb");
  ASSERT_EQ(from_file.num_inputs(), from_memory.num_inputs());
  ASSERT_EQ(from_file.num_outputs(), from_memory.num_outputs());
  for (size_t i = 0; i < from_file.num_inputs(); i++) {
    EXPECT_EQ(from_file.input_name(i), from_memory.input_name(i));
    EXPECT_EQ(from_file.input_fact(i), from_memory.input_fact(i));
  }
  EXPECT_EQ(from_file.output_name(0), from_memory.output_name(0));
  std::string junk = "garbage, not a GraphDef";
  EXPECT_NE(error_of([&] {
              Model::load_from_memory(junk.data(), junk.size(), Format::TensorFlow, "junk.pb");
            }).find("junk.pb"),
            std::string::npos);
}

TEST(ApiModel, TwoSessionsOnTwoThreadsShareOneRunnable) {
  REQUIRE_MODEL(dir, "kws_tdnn");
  Runnable runnable = Model::load((dir / "model.onnx").string()).optimize();
  Tensor input = read_tensor((dir / "test_data_set_0" / "input_0.pb").string());
  Tensor expected = read_tensor((dir / "test_data_set_0" / "output_0.pb").string());
  std::vector<Tensor> results[2];
  std::string errors[2];
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; t++)
    threads.emplace_back([&, t] {
      try {
        Session session = runnable.session({1});
        for (int r = 0; r < 5; r++) results[t] = session.run({input});
      } catch (const kiln::Error& e) {
        errors[t] = e.what();
      }
    });
  for (auto& t : threads) t.join();
  for (int t = 0; t < 2; t++) {
    EXPECT_EQ(errors[t], "");
    ASSERT_EQ(results[t].size(), 1u);
    expect_close(results[t][0], expected);
  }
}

TEST(ApiModel, SileroInputsByNameWithAConstantFact) {
  REQUIRE_MODEL(dir, "silero_vad_v5");
  Model model = Model::load((dir / "model.onnx").string());
  ASSERT_EQ(model.num_inputs(), 3u);
  std::map<std::string, Tensor> inputs;
  for (size_t i = 0; i < 3; i++)
    inputs[model.input_name(i)] =
        read_tensor((dir / "test_data_set_0" / ("input_" + std::to_string(i) + ".pb")).string());
  model.set_input_fact("sr:i64=16000");
  Session session = model.optimize().session();
  auto outputs = session.run(inputs);
  ASSERT_EQ(outputs.size(), 2u);
  for (size_t i = 0; i < 2; i++)
    expect_close(
        outputs[i],
        read_tensor((dir / "test_data_set_0" / ("output_" + std::to_string(i) + ".pb")).string()));
  double total = 0;
  auto nodes = session.profile(
      {inputs[model.input_name(0)], inputs[model.input_name(1)], inputs[model.input_name(2)]}, 2,
      &total);
  ASSERT_FALSE(nodes.empty());
  EXPECT_GT(total, 0);
  for (size_t i = 1; i < nodes.size(); i++) EXPECT_GE(nodes[i - 1].ms, nodes[i].ms);
  inputs["sr"] = Tensor::from_vector<int64_t>({}, {8000});
  std::string wrong_constant = error_of([&] { session.run(inputs); });
  EXPECT_NE(wrong_constant.find("sr"), std::string::npos) << wrong_constant;
}

TEST(ApiStream, PulsedModelMatchesTheWholeInputModel) {
  REQUIRE_MODEL(dir, "wavenet_kws");
  Model model = Model::load((dir / "model.onnx").string());
  EXPECT_EQ(model.input_fact(0), "1,40,S,f32");
  Tensor input = read_tensor((dir / "test_data_set_0" / "input_0.pb").string());
  Tensor expected = read_tensor((dir / "test_data_set_0" / "output_0.pb").string());
  PulsedRunnable pulsed = model.pulse("8");
  EXPECT_EQ(pulsed.pulse(), 8);
  ASSERT_EQ(pulsed.num_outputs(), 1u);
  EXPECT_EQ(pulsed.delay(0), 0);  // what `kiln run --pulse 8` reports for this model
  StreamSession stream = pulsed.stream_session({1});
  auto whole = stream.run_whole({input});
  ASSERT_EQ(whole.size(), 1u);
  expect_close(whole[0], expected);

  // Pulse by pulse: 8 frames in, 8 frames of the output out, the same values.
  stream.reset();
  auto shape = input.shape();
  const int64_t frames = shape[2], channels = shape[1];
  ASSERT_EQ(frames % 8, 0);
  const float* x = input.data_as<float>();
  const float* want = expected.data_as<float>();
  const int64_t classes = expected.shape()[1];
  int64_t bad = 0;
  for (int64_t p = 0; p < frames / 8; p++) {
    std::vector<float> chunk(static_cast<size_t>(channels * 8));
    for (int64_t c = 0; c < channels; c++)
      for (int64_t f = 0; f < 8; f++) chunk[c * 8 + f] = x[c * frames + p * 8 + f];
    auto out = stream.push({Tensor::from_vector<float>({1, channels, 8}, chunk)});
    ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{1, classes, 8}));
    const float* y = out[0].data_as<float>();
    for (int64_t k = 0; k < classes; k++)
      for (int64_t f = 0; f < 8; f++) {
        float w = want[k * frames + p * 8 + f];
        if (!(std::fabs(y[k * 8 + f] - w) <= 1e-5 + 1e-4 * std::fabs(w))) bad++;
      }
  }
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(stream.pulses(), frames / 8);
  EXPECT_NE(error_of([&] { stream.push({Tensor(DataType::F32, {1, channels, 7})}); }), "");
  EXPECT_NE(error_of([&] { Model::load((dir / "model.onnx").string()).pulse("x"); }), "");
}
