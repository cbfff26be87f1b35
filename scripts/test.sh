#!/usr/bin/env bash
# Installs dependencies, builds with warnings as errors, and runs the whole test suite
# (unit tests, CLI error tests, the shared models, and the ONNX backend suite).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# KILN_BUILD_SHARED=ON (the default; explicit for build folders configured before it was):
# libkiln.so and its tests (ctest -L api: exported symbols, Python and .deb packages installed).
# KILN_UNITY_BUILD=ON: a cold build compiles the libraries, CLI and tests in unity batches, about
# 3x less compile time (cmake/KilnPrecompile.cmake); a developer's build folder keeps it off.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DKILN_WERROR=ON -DKILN_BUILD_SHARED=ON \
  -DKILN_UNITY_BUILD=ON
cmake --build build -j "$(nproc)"
ctest --test-dir build -j "$(nproc)" --output-on-failure
# Which ISAs the per-ISA legs (ctest -L isa) exercised; loud when the CPU lacks one.
bash tests/isa/run_isa_leg.sh --summary
