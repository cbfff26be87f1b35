#include "ops/audio/decode_wav.h"

#include <cstring>

#include "base/error.h"

namespace kiln::ops {

namespace {

uint32_t read_u32(std::string_view b, size_t at) {
  return static_cast<uint32_t>(static_cast<uint8_t>(b[at])) |
         static_cast<uint32_t>(static_cast<uint8_t>(b[at + 1])) << 8 |
         static_cast<uint32_t>(static_cast<uint8_t>(b[at + 2])) << 16 |
         static_cast<uint32_t>(static_cast<uint8_t>(b[at + 3])) << 24;
}

uint16_t read_u16(std::string_view b, size_t at) {
  return static_cast<uint16_t>(static_cast<uint8_t>(b[at]) | static_cast<uint8_t>(b[at + 1]) << 8);
}

}  // namespace

WavData parse_wav(std::string_view b) {
  KILN_ENSURE(b.size() >= 12, "WAV: {} bytes, too short for a RIFF header (12 bytes)", b.size());
  KILN_ENSURE(b.substr(0, 4) == "RIFF", "WAV: does not start with 'RIFF' (not a WAV file)");
  KILN_ENSURE(b.substr(8, 4) == "WAVE", "WAV: RIFF file of type '{}', expected 'WAVE'",
              std::string(b.substr(8, 4)));
  WavData wav;
  bool have_format = false, have_data = false;
  size_t at = 12;
  while (at + 8 <= b.size() && !have_data) {
    const std::string_view id = b.substr(at, 4);
    const uint64_t size = read_u32(b, at + 4);
    at += 8;
    KILN_ENSURE(size <= b.size() - at,
                "WAV: chunk '{}' of {} bytes runs past the end of the file "
                "({} bytes left): truncated file",
                std::string(id), size, b.size() - at);
    if (id == "fmt ") {
      KILN_ENSURE(size >= 16, "WAV: 'fmt ' chunk of {} bytes, expected at least 16", size);
      const uint16_t format = read_u16(b, at);
      const uint16_t channels = read_u16(b, at + 2);
      const uint32_t rate = read_u32(b, at + 4);
      const uint32_t byte_rate = read_u32(b, at + 8);
      const uint16_t block_align = read_u16(b, at + 12);
      const uint16_t bits = read_u16(b, at + 14);
      KILN_ENSURE(format == 1, "WAV: audio format {} is not supported (only 1, integer PCM)",
                  format);
      KILN_ENSURE(bits == 16, "WAV: {} bits per sample, only 16 is supported", bits);
      KILN_ENSURE(channels > 0, "WAV: zero channels");
      KILN_ENSURE(rate > 0, "WAV: sample rate 0");
      KILN_ENSURE(block_align == channels * 2,
                  "WAV: block align {} does not match {} channels of 16 bits", block_align,
                  channels);
      KILN_ENSURE(byte_rate == static_cast<uint64_t>(rate) * block_align,
                  "WAV: byte rate {} does not match sample rate {} x block align {}", byte_rate,
                  rate, block_align);
      KILN_ENSURE(rate <= static_cast<uint32_t>(INT32_MAX), "WAV: sample rate {} too large", rate);
      wav.channels = channels;
      wav.sample_rate = rate;
      have_format = true;
    } else if (id == "data") {
      KILN_ENSURE(have_format, "WAV: 'data' chunk before the 'fmt ' chunk");
      const uint64_t frame_bytes = static_cast<uint64_t>(wav.channels) * 2;
      KILN_ENSURE(size % frame_bytes == 0,
                  "WAV: data chunk of {} bytes is not a whole number of {}-byte frames", size,
                  frame_bytes);
      wav.samples.resize(size / 2);
      for (size_t i = 0; i < wav.samples.size(); i++)
        wav.samples[i] = static_cast<int16_t>(read_u16(b, at + 2 * i));
      have_data = true;
    }
    at += size + (size & 1);  // chunks are padded to an even size
  }
  KILN_ENSURE(have_format, "WAV: no 'fmt ' chunk");
  KILN_ENSURE(have_data, "WAV: no 'data' chunk");
  return wav;
}

Attributes DecodeWav::attributes() const {
  return {{"desired_channels", std::to_string(desired_channels_)},
          {"desired_samples", std::to_string(desired_samples_)}};
}

std::vector<Fact> DecodeWav::output_facts(const FactRefs& inputs) const {
  expect_inputs(name(), inputs.size(), 1, 1);
  const Fact& in = required(inputs, 0, name());
  KILN_ENSURE(in.dt == DatumType::String && in.volume() == Dim(1),
              "DecodeWav: input must be one string (the file's bytes), got {}", in.to_string());
  Dim samples = desired_samples_ >= 0 ? Dim(desired_samples_) : Dim::fresh();
  Dim channels = desired_channels_ >= 0 ? Dim(desired_channels_) : Dim::fresh();
  return {Fact(DatumType::F32, std::vector<Dim>{samples, channels}),
          Fact(DatumType::I32, std::vector<Dim>{})};
}

void DecodeWav::eval(EvalContext& ctx, const TensorRefs& inputs) const {
  const Tensor& in = required(inputs, 0, name());
  KILN_ENSURE(in.dtype() == DatumType::String && in.numel() == 1,
              "DecodeWav: input must be one string (the file's bytes)");
  WavData wav = parse_wav(in.values<std::string>()[0]);
  const int64_t file_samples = static_cast<int64_t>(wav.samples.size()) / wav.channels;
  const int64_t samples = desired_samples_ >= 0 ? desired_samples_ : file_samples;
  const int64_t channels = desired_channels_ >= 0 ? desired_channels_ : wav.channels;
  KILN_ENSURE(channels > 0, "DecodeWav: desired_channels must be positive");
  Tensor& out = ctx.output(0, DatumType::F32, {samples, channels});
  float* dst = out.data<float>();
  for (int64_t s = 0; s < samples; s++) {
    for (int64_t c = 0; c < channels; c++) {
      float v = 0.0f;
      if (s < file_samples) {
        int64_t src = std::min(c, wav.channels - 1);  // extra channels repeat the last one
        v = static_cast<float>(wav.samples[static_cast<size_t>(s * wav.channels + src)]) / 32768.0f;
      }
      dst[s * channels + c] = v;
    }
  }
  ctx.output(1, DatumType::I32, {}).data<int32_t>()[0] = static_cast<int32_t>(wav.sample_rate);
}

}  // namespace kiln::ops
