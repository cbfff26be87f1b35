#!/usr/bin/env bash
# Sets up, builds, and runs kiln on the example model shipped in examples/ (Silero VAD v5, MIT):
# prints its graph, then runs it on fixed inputs and checks ONNX Runtime's outputs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$(nproc)" --target kiln
model=examples/silero_vad_v5
./build/kiln dump "$model/model.onnx" -i input:1,576,f32
./build/kiln run "$model/model.onnx" --input-bundle "$model/test_data_set_0" \
  --assert-output-bundle "$model/test_data_set_0"
