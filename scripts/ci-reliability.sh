#!/usr/bin/env bash
# CI's reliability leg (run by .ci/run after scripts/test.sh; docs/testing.md). What fits the 45
# minutes: kiln_core + the tensor-file, .dat and WAV readers (a few dozen files) built with
# clang under ASan + UBSan + libFuzzer coverage, and under TSan:
#   - kiln_core_tests (Dim, Tensor, Graph, State, the pool and teams, run limits, .npy/.npz/.pb
#     files) under ASan+UBSan and under TSan (scripts/sanitize.sh --quick),
#   - the light fuzz harnesses (npy npz tensor_pb nnef_dat wav) KILN_CI_FUZZ_SECONDS each (default
#     30) on their seeds, two at a time, and their regressions replayed under the sanitizers.
# Every harness's regressions (model harnesses too) are replayed by ctest in scripts/test.sh's
# Release build. The model harnesses' fuzzing, the full ASan/UBSan and TSan runs (every unit,
# CLI and model test, the backend suite) need every library built three more times: nightly
# (scripts/nightly.sh).
# Environment: KILN_CI_RELIABILITY=skip skips the leg (loudly), KILN_CI_FUZZ_SECONDS.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${KILN_CI_RELIABILITY:-}" = skip ]; then
  echo "=================================================================="
  echo "ci-reliability: SKIPPED because KILN_CI_RELIABILITY=skip: no fuzzing, no sanitizers."
  echo "=================================================================="
  exit 0
fi
seconds=${KILN_CI_FUZZ_SECONDS:-30}
light=(npy npz tensor_pb nnef_dat wav)
t0=$SECONDS
status=0
bash scripts/sanitize.sh --asan --tsan --quick || status=1
t1=$SECONDS
echo "ci-reliability: sanitizer builds and core tests took $((t1 - t0)) s"
# Seeds: the committed ones, the shared models' and backend data's (scripts/fuzz-corpus.sh).
KILN=build/kiln bash scripts/fuzz-corpus.sh build-fuzz/corpus >/dev/null
bash scripts/fuzz.sh --no-build --seconds "$seconds" --jobs "$(nproc)" "${light[@]}" || status=1
echo "ci-reliability: fuzzing took $((SECONDS - t1)) s; leg $((SECONDS - t0)) s"
exit $status
