// A 16-bit PCM WAV file as float samples in [-1, 1): the way audio models (Silero VAD, keyword
// spotters) take speech. Mono only; the sample rate is returned for messages.
#pragma once

#include <string>

#include "core/tensor.h"

namespace kiln::cli {

struct WavSamples {
  Tensor samples;  // f32 [1, n]
  int sample_rate = 0;
};

// Reads RIFF/WAVE, format 1 (PCM), 16 bits, one channel; throws naming what is not.
WavSamples read_wav_pcm16(const std::string& path);

}  // namespace kiln::cli
