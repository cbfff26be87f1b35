// `kiln run --stream` on Silero VAD v5 over a 10 s WAV (synthesized here, deterministic): the
// per-chunk speech probabilities the CLI saves equal feeding the chunks by hand through a
// Session with the state wired back (512 new samples + 64 of context per chunk, as v5 expects).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <random>

#include "../cli/run_kiln.h"
#include "core/session.h"
#include "io/model_loader.h"
#include "io/tensor/tensor_files.h"
#include "passes/pipeline.h"
#include "pulse_test_util.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

// 10 s at 16 kHz: silence, two voiced bursts (harmonics of 140 / 220 Hz with a syllable
// envelope) and noise, 16-bit PCM mono. Returns the samples as written (int16 / 32768).
std::vector<float> write_wav(const fs::path& path) {
  const int rate = 16000, n = 10 * rate;
  std::mt19937_64 rng(42);
  std::normal_distribution<double> noise(0.0, 0.01);
  std::vector<int16_t> pcm(n);
  std::vector<float> samples(n);
  for (int i = 0; i < n; i++) {
    double t = static_cast<double>(i) / rate, v = noise(rng);
    for (auto [start, f0] : {std::pair{1.5, 140.0}, std::pair{5.0, 220.0}}) {
      if (t < start || t > start + 2.5) continue;
      double env = std::pow(std::sin(M_PI * (t - start) / 0.25), 2);
      for (int h = 1; h <= 6; h++) v += env * 0.25 / h * std::sin(2 * M_PI * f0 * h * t);
    }
    pcm[i] = static_cast<int16_t>(std::lround(std::clamp(v, -1.0, 32767.0 / 32768) * 32768));
    samples[i] = static_cast<float>(pcm[i]) / 32768.0f;
  }
  std::ofstream out(path, std::ios::binary);
  auto u32 = [&](uint32_t v) { out.write(reinterpret_cast<const char*>(&v), 4); };
  auto u16 = [&](uint16_t v) { out.write(reinterpret_cast<const char*>(&v), 2); };
  out.write("RIFF", 4);
  u32(36 + 2 * n);
  out.write("WAVEfmt ", 8);
  u32(16);
  u16(1);
  u16(1);
  u32(rate);
  u32(2 * rate);
  u16(2);
  u16(16);
  out.write("data", 4);
  u32(2 * n);
  out.write(reinterpret_cast<const char*>(pcm.data()), 2 * n);
  return samples;
}

TEST(SileroStream, CliEqualsManualChunkFeeding) {
  fs::path model = testing::stream_models_dir() / "silero_vad_v5" / "model.onnx";
  if (!fs::exists(model)) GTEST_SKIP() << model << " not present";
  fs::path dir = fs::temp_directory_path() / ("kiln_silero_stream_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto samples = write_wav(dir / "speech.wav");
  auto r = testing::run_kiln(
      fmt::format("run {} --stream input --chunk 512 --context 64 --state stateN:state --input "
                  "input={} -i sr:i64=16000 --output-dir {} --output-format npy --threads 1 -q",
                  model.string(), (dir / "speech.wav").string(), (dir / "out").string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  Tensor cli = io::read_npy((dir / "out" / "output_0.npy").string());
  const int64_t chunks = (static_cast<int64_t>(samples.size()) + 511) / 512;
  ASSERT_EQ(cli.dim(0), chunks);
  EXPECT_FALSE(fs::exists(dir / "out" / "output_1.npy"));  // the state is not an output

  // By hand: the same chunks through one Session, stateN fed back to state.
  auto graph = io::load_model(model.string());
  graph->set_input_fact(2, Fact::parse("i64=16000"));  // as -i sr:i64=16000
  std::vector<Tensor> in{Tensor(DatumType::F32, {1, 576}), Tensor(DatumType::F32, {2, 1, 128}),
                         Tensor::scalar<int64_t>(16000)};
  std::memset(in[1].raw_data(), 0, in[1].nbytes());
  bind_input_shapes(*graph, in);
  passes::run_to_stage(*graph, passes::Stage::Optimize);
  Session session(passes::plan(graph), {1});
  std::vector<float> probs;
  for (int64_t k = 0; k < chunks; k++) {
    float* x = in[0].data<float>();
    for (int64_t j = 0; j < 576; j++) {
      int64_t t = k * 512 - 64 + j;
      x[j] = t >= 0 && t < static_cast<int64_t>(samples.size()) ? samples[t] : 0.0f;
    }
    auto out = session.run(in);
    probs.push_back(out[0].data<float>()[0]);
    in[1] = out[1].clone();
  }
  ASSERT_EQ(cli.numel(), chunks);
  float lo = 1, hi = 0;
  for (int64_t k = 0; k < chunks; k++) {
    EXPECT_NEAR(cli.data<float>()[k], probs[k], 1e-6) << "chunk " << k;
    lo = std::min(lo, probs[k]);
    hi = std::max(hi, probs[k]);
  }
  // The probabilities move (the test could not pass with a constant answer).
  EXPECT_GT(hi - lo, 0.05f);
  fs::remove_all(dir);
}

TEST(SileroStream, BadOptionsAreClearErrors) {
  fs::path model = testing::stream_models_dir() / "silero_vad_v5" / "model.onnx";
  if (!fs::exists(model)) GTEST_SKIP() << model << " not present";
  auto r = testing::run_kiln(fmt::format(
      "run {} --stream input --chunk 512 --state nope:state --input input=x.wav -i sr:i64=16000",
      model.string()));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("no output named 'nope'"), std::string::npos) << r.output;
  r = testing::run_kiln(
      fmt::format("run {} --stream input --chunk 512 --input input=/nonexistent.wav "
                  "-i sr:i64=16000",
                  model.string()));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("cannot open WAV"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace kiln
