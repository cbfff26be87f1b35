#include "cli/wav_input.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "base/error.h"

namespace kiln::cli {

namespace {

uint32_t le32(const unsigned char* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
uint16_t le16(const unsigned char* p) {
  return uint16_t(p[0] | p[1] << 8);
}

}  // namespace

WavSamples read_wav_pcm16(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  KILN_ENSURE(in, "cannot open WAV file '{}'", path);
  std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
  KILN_ENSURE(bytes.size() >= 12 && std::memcmp(bytes.data(), "RIFF", 4) == 0 &&
                  std::memcmp(bytes.data() + 8, "WAVE", 4) == 0,
              "'{}' is not a RIFF/WAVE file", path);
  size_t pos = 12;
  int channels = 0, bits = 0, format = 0, rate = 0;
  const unsigned char* data = nullptr;
  size_t data_bytes = 0;
  while (pos + 8 <= bytes.size()) {
    const unsigned char* c = bytes.data() + pos;
    size_t size = le32(c + 4);
    KILN_ENSURE(size <= bytes.size() - pos - 8, "'{}': chunk '{}' runs past the end of the file",
                path, std::string(reinterpret_cast<const char*>(c), 4));
    if (std::memcmp(c, "fmt ", 4) == 0) {
      KILN_ENSURE(size >= 16, "'{}': fmt chunk too short", path);
      format = le16(c + 8);
      channels = le16(c + 10);
      rate = static_cast<int>(le32(c + 12));
      bits = le16(c + 22);
    } else if (std::memcmp(c, "data", 4) == 0) {
      data = c + 8;
      data_bytes = size;
    }
    pos += 8 + size + (size & 1);
  }
  KILN_ENSURE(format != 0, "'{}': no fmt chunk", path);
  KILN_ENSURE(data, "'{}': no data chunk", path);
  KILN_ENSURE(format == 1 && bits == 16,
              "'{}': only 16-bit PCM WAV is read (format {}, {} bits); convert it, e.g. sox in.wav "
              "-b 16 -e signed out.wav",
              path, format, bits);
  KILN_ENSURE(channels == 1, "'{}' has {} channels: give a mono file (sox in.wav -c 1 out.wav)",
              path, channels);
  const int64_t n = static_cast<int64_t>(data_bytes / 2);
  WavSamples w;
  w.sample_rate = rate;
  w.samples = Tensor(DatumType::F32, {1, n});
  float* dst = w.samples.data<float>();
  for (int64_t i = 0; i < n; i++)
    dst[i] = static_cast<float>(static_cast<int16_t>(le16(data + 2 * i))) / 32768.0f;
  return w;
}

}  // namespace kiln::cli
