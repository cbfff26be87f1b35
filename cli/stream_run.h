// `kiln run --stream INPUT --chunk N [--context C] [--state OUT:IN ...]`: a stateful model with
// explicit state inputs and outputs (Silero VAD) run over a long input chunk by chunk, each
// output state wired back to its input, as people run a VAD over a file:
//
//   kiln run silero_vad.onnx --stream input --chunk 512 --context 64 --state stateN:state
//       --input input=speech.wav -i sr:i64=16000
//
// The streamed input's last axis is time; chunk k holds samples [k*N - C, k*N + N) (zeros
// before the start and past the end): N new samples after the previous chunk's last C. A .wav
// input is read as 16-bit PCM samples in [-1, 1). State inputs start as their --input value or
// zeros (symbolic dims: 1). Prints each chunk's outputs; --output-dir saves each output stacked
// over the chunks.
#pragma once

#include <string>
#include <vector>

#include "cli/model_setup.h"

namespace kiln::cli {

struct StreamRunOptions {
  ModelOptions model;
  InputOptions inputs;
  std::string stream;               // the input fed chunk by chunk
  int64_t chunk = 0;                // new samples per chunk
  int64_t context = 0;              // samples of the previous chunk repeated
  std::vector<std::string> states;  // OUT:IN pairs
  std::string output_dir;
  std::string output_format = "npy";
  bool quiet = false;
};

int run_stream(const StreamRunOptions& o);

}  // namespace kiln::cli
