#include "ops/audio/decode_wav.h"

#include <gtest/gtest.h>

#include "base/error.h"
#include "tests/ops/audio/wav_test_util.h"

using namespace kiln;
using kiln::audio_test::make_wav;
using kiln::audio_test::WavSpec;

namespace {

std::vector<Tensor> decode(const std::string& bytes, int64_t channels = -1, int64_t samples = -1) {
  ops::DecodeWav op(channels, samples);
  std::vector<Tensor> outs(2);
  EvalContext ctx(outs);
  Tensor in = Tensor::scalar<std::string>(bytes);
  op.eval(ctx, {&in});
  return outs;
}

std::string error_of(const std::string& bytes) {
  try {
    decode(bytes);
  } catch (const Error& e) {
    return e.message();
  }
  return "";
}

}  // namespace

TEST(DecodeWav, MonoScaledByPowerOfTwo) {
  auto outs = decode(make_wav({0, 16384, -32768, 32767, -1}, WavSpec{.rate = 8000}));
  ASSERT_EQ(outs[0].shape(), (Shape{5, 1}));
  auto v = outs[0].values<float>();
  EXPECT_EQ(v[0], 0.0f);
  EXPECT_EQ(v[1], 0.5f);
  EXPECT_EQ(v[2], -1.0f);
  EXPECT_EQ(v[3], 32767.0f / 32768.0f);
  EXPECT_EQ(v[4], -1.0f / 32768.0f);
  EXPECT_EQ(outs[1].values<int32_t>()[0], 8000);
  EXPECT_EQ(outs[1].rank(), 0u);
}

TEST(DecodeWav, DesiredSamplesAndChannels) {
  // Stereo frames (L, R): (1, 2), (3, 4), (5, 6).
  std::string wav = make_wav({1, 2, 3, 4, 5, 6}, WavSpec{.channels = 2});
  auto crop_mono = decode(wav, 1, 2);  // keeps the first channel, first 2 frames
  ASSERT_EQ(crop_mono[0].shape(), (Shape{2, 1}));
  EXPECT_EQ(crop_mono[0].values<float>()[1], 3.0f / 32768.0f);
  auto pad_three = decode(wav, 3, 4);  // repeats the last channel, zero-pads frames
  ASSERT_EQ(pad_three[0].shape(), (Shape{4, 3}));
  std::vector<float> expect{1, 2, 2, 3, 4, 4, 5, 6, 6, 0, 0, 0};
  for (size_t i = 0; i < expect.size(); i++)
    EXPECT_EQ(pad_three[0].values<float>()[i], expect[i] / 32768.0f) << i;
}

TEST(DecodeWav, MalformedFilesGiveClearErrors) {
  std::string good = make_wav({1, 2, 3});
  EXPECT_NE(error_of("RIFF").find("too short"), std::string::npos);
  EXPECT_NE(error_of("RIFX" + good.substr(4)).find("'RIFF'"), std::string::npos);
  std::string avi = good;
  avi.replace(8, 4, "AVI ");
  EXPECT_NE(error_of(avi).find("'WAVE'"), std::string::npos);
  EXPECT_NE(error_of(make_wav({1}, WavSpec{.format = 3})).find("audio format 3"),
            std::string::npos);
  EXPECT_NE(error_of(make_wav({1}, WavSpec{.bits = 8, .block_align = 2})).find("8 bits"),
            std::string::npos);
  EXPECT_NE(error_of(make_wav({1}, WavSpec{.block_align = 4})).find("block align"),
            std::string::npos);
  EXPECT_NE(error_of(make_wav({1}, WavSpec{.byte_rate = 7})).find("byte rate"), std::string::npos);
  EXPECT_NE(error_of(good.substr(0, good.size() - 2)).find("truncated"), std::string::npos);
  // No data chunk: cut the file right after the LIST chunk.
  std::string no_data = good.substr(0, 12 + 24 + 12);
  EXPECT_NE(error_of(no_data).find("no 'data' chunk"), std::string::npos);
  // Odd data size for 16-bit samples.
  std::string odd = good;
  odd[12 + 24 + 12 + 4] = 5;
  EXPECT_NE(error_of(odd.substr(0, odd.size() - 1)).find("whole number"), std::string::npos);
  // A non-string input.
  ops::DecodeWav op;
  Fact f(DatumType::F32, Shape{});
  EXPECT_THROW(op.output_facts({&f}), Error);
}
