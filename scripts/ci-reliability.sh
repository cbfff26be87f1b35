#!/usr/bin/env bash
# CI's reliability leg (run by .ci/run after scripts/test.sh; docs/testing.md): one clang build
# with ASan + UBSan and libFuzzer's coverage counters (build-fuzz) serves both halves:
#   - every fuzz harness runs KILN_CI_FUZZ_SECONDS (default 20) on its seed corpus, two at a
#     time, and the committed regressions and seeds are replayed under the sanitizers;
#   - the quick sanitizer subset of the unit, CLI, kernel and loader tests and a backend subset
#     (scripts/sanitize.sh --asan --quick).
# TSan and the full sanitizer and fuzz runs are nightly (scripts/nightly.sh).
# Environment: KILN_CI_RELIABILITY=skip skips the leg (loudly), KILN_CI_FUZZ_SECONDS.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${KILN_CI_RELIABILITY:-}" = skip ]; then
  echo "=================================================================="
  echo "ci-reliability: SKIPPED because KILN_CI_RELIABILITY=skip: no fuzzing, no sanitizers."
  echo "=================================================================="
  exit 0
fi
seconds=${KILN_CI_FUZZ_SECONDS:-20}
t0=$SECONDS
harnesses=(onnx onnx_struct tf nnef nnef_dat nnef_tgz nnef_quant npy npz tensor_pb wav fact)
targets=(kiln kiln_tests kiln_backend_tests kiln_fuzz_replay)
for h in "${harnesses[@]}"; do targets+=("kiln_fuzz_$h"); done
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS_RELEASE="-O1 -gline-tables-only" -DKILN_SANITIZE=address,undefined \
  -DKILN_FUZZ=ON -DKILN_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build-fuzz -j "$(nproc)" --target "${targets[@]}"
t1=$SECONDS
echo "ci-reliability: clang ASan+UBSan+fuzzer build took $((t1 - t0)) s"
status=0
bash scripts/sanitize.sh --asan --quick --no-build || status=1
t2=$SECONDS
echo "ci-reliability: sanitizer subset took $((t2 - t1)) s"
# Seeds: the committed ones and the shared models / backend data (scripts/fuzz-corpus.sh), the
# NNEF ones converted by the Release kiln of scripts/test.sh.
KILN=build/kiln bash scripts/fuzz-corpus.sh build-fuzz/corpus >/dev/null
bash scripts/fuzz.sh --no-build --seconds "$seconds" --jobs "$(nproc)" "${harnesses[@]}" || status=1
echo "ci-reliability: fuzzing took $((SECONDS - t2)) s; leg $((SECONDS - t0)) s"
exit $status
