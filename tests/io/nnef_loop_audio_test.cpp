// NNEF kiln_core_loop (body as a fragment) and kiln_audio_* fragments: hand-written documents
// run to known values, a kiln graph of the audio ops survives writing and reading back, and
// malformed invocations are errors naming the problem.
#include <gtest/gtest.h>

#include <cstring>

#include "base/error.h"
#include "core/state.h"
#include "io/nnef/nnef_loader.h"
#include "io/nnef/nnef_writer.h"
#include "ops/audio/audio_spectrogram.h"
#include "ops/audio/decode_wav.h"
#include "ops/audio/mfcc.h"

namespace {

using namespace kiln;
using nnef::FileMap;

std::vector<Tensor> run(std::shared_ptr<Graph> g, const std::vector<Tensor>& inputs) {
  bind_input_shapes(*g, inputs);
  g->analyse();
  return run_graph(g, inputs);
}

std::vector<float> floats(const Tensor& t) {
  auto v = t.values<float>();
  return {v.begin(), v.end()};
}

std::string load_error(const FileMap& files) {
  try {
    nnef::load_nnef_files(files);
  } catch (const Error& e) {
    return e.chain();
  }
  return "";
}

std::string loop_doc(const std::string& body, int outputs) {
  return R"(version 1.0;
extension KHR_enable_fragment_definitions;
extension kiln_registry kiln_core;

fragment step( i: tensor<integer>, c: tensor<logical>, acc: tensor<scalar>, y: tensor<scalar> )
    -> ( c_out: tensor<logical>, acc_out: tensor<scalar>, twice: tensor<scalar> )
{
    c_out = copy(c);
    acc_out = add(acc, y);
    twice = mul(acc, 2.0);
}

graph network( x, y ) -> ( total, scans )
{
    x = external<scalar>(shape = [3]);
    y = external<scalar>(shape = [3]);
    n = constant<integer>(shape = [], value = [3]);
    [total, scans] = kiln_core_loop(trip_count = n, carried = [x], captured = [y], body = ')" +
         body + "', outputs = " + std::to_string(outputs) + ");\n}\n";
}

TEST(NnefLoop, CountedLoopWithScanOutput) {
  auto g = nnef::load_nnef_files({{"graph.nnef", loop_doc("step", 2)}});
  auto out = run(
      g, {Tensor::from_vector<float>({3}, {1, 2, 3}), Tensor::from_vector<float>({3}, {1, 1, 1})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(floats(out[0]), (std::vector<float>{4, 5, 6}));
  ASSERT_EQ(out[1].shape(), (Shape{3, 3}));
  EXPECT_EQ(floats(out[1]), (std::vector<float>{2, 4, 6, 4, 6, 8, 6, 8, 10}));

  // Written back: the body is a fragment again, and the result loads and runs the same.
  auto written = nnef::write_nnef(*g);
  EXPECT_NE(written.files.at("graph.nnef").find("kiln_core_loop("), std::string::npos);
  auto again =
      run(nnef::load_nnef_files(written.files),
          {Tensor::from_vector<float>({3}, {1, 2, 3}), Tensor::from_vector<float>({3}, {1, 1, 1})});
  EXPECT_EQ(floats(again[0]), floats(out[0]));
  EXPECT_EQ(floats(again[1]), floats(out[1]));
}

TEST(NnefLoop, MalformedLoopsAreErrors) {
  EXPECT_NE(load_error({{"graph.nnef", loop_doc("nowhere", 2)}}).find("no fragment definition"),
            std::string::npos);
  std::string e = load_error({{"graph.nnef", loop_doc("step", 3)}});
  EXPECT_NE(e.find("3 outputs declared"), std::string::npos) << e;
}

// A 16-bit mono PCM WAV of these samples at 16 kHz.
std::string wav_bytes(const std::vector<int16_t>& samples) {
  auto u32 = [](uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); };
  auto u16 = [](uint16_t v) { return std::string(reinterpret_cast<const char*>(&v), 2); };
  uint32_t data = uint32_t(samples.size() * 2);
  std::string s = "RIFF" + u32(36 + data) + "WAVEfmt " + u32(16) + u16(1) + u16(1) + u32(16000) +
                  u32(32000) + u16(2) + u16(16) + "data" + u32(data);
  std::string body(data, '\0');
  std::memcpy(body.data(), samples.data(), data);
  return s + body;
}

TEST(NnefAudio, FrontEndRoundTrips) {
  auto g = std::make_shared<Graph>();
  Outlet wav = g->add_source("wav", Fact(DatumType::String, std::vector<Dim>{}));
  int decode = g->add_node("decode", std::make_shared<ops::DecodeWav>(1, 256), {wav}, 2);
  int spec = g->add_node("spec", std::make_shared<ops::AudioSpectrogram>(64, 32, true),
                         {Outlet{decode, 0}}, 1);
  ops::MfccConfig cfg;
  cfg.upper_frequency_limit = 7000;
  cfg.lower_frequency_limit = 30;
  cfg.filterbank_channel_count = 20;
  cfg.dct_coefficient_count = 8;
  int mfcc = g->add_node("mfcc", std::make_shared<ops::Mfcc>(cfg),
                         {Outlet{spec, 0}, Outlet{decode, 1}}, 1);
  g->set_outputs({Outlet{mfcc, 0}}, {"features"});
  g->analyse();

  auto written = nnef::write_nnef(*g);
  const std::string& text = written.files.at("graph.nnef");
  EXPECT_NE(text.find("extension kiln_registry kiln_audio;"), std::string::npos) << text;
  EXPECT_NE(text.find("datum_type = 'string'"), std::string::npos) << text;
  EXPECT_NE(text.find("kiln_audio_spectrogram(decode, window_size = 64, stride = 32, "
                      "magnitude_squared = true)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("upper_frequency_limit = 7000.0, lower_frequency_limit = 30.0, "
                      "filterbank_channel_count = 20, dct_coefficient_count = 8"),
            std::string::npos)
      << text;

  std::vector<int16_t> samples(300);
  for (size_t i = 0; i < samples.size(); i++) samples[i] = int16_t((i * 37 % 200) * 100 - 10000);
  Tensor in = Tensor::scalar<std::string>(wav_bytes(samples));
  auto expected = run(g, {in});
  auto got = run(nnef::load_nnef_files(written.files), {in});
  ASSERT_EQ(got[0].shape(), expected[0].shape());
  EXPECT_EQ(got[0].shape(), (Shape{1, 7, 8}));
  EXPECT_EQ(floats(got[0]), floats(expected[0]));
}

TEST(NnefAudio, BadParametersAreErrors) {
  std::string doc = R"(version 1.0;
extension kiln_registry kiln_audio;
extension tract_registry tract_core;
graph network( wav ) -> ( s )
{
    wav = tract_core_external(shape = [], datum_type = 'string');
    [audio, rate] = kiln_audio_decode_wav(wav, desired_channels = 1, desired_samples = 100);
    s = kiln_audio_spectrogram(audio, window_size = 0, stride = 4);
}
)";
  std::string e = load_error({{"graph.nnef", doc}});
  EXPECT_NE(e.find("window_size and stride must be positive"), std::string::npos) << e;
}

}  // namespace
