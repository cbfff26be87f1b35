#!/usr/bin/env bash
# Sanitizer runs (docs/testing.md): the unit tests, the CLI tests (they start the sanitized
# `kiln`), the model tests and a subset of the ONNX backend suite, under
#   ASan + UBSan  (-DKILN_SANITIZE=address,undefined, clang; build-fuzz, shared with the fuzz
#                  harnesses: KILN_FUZZ only adds coverage counters)
#   TSan          (-DKILN_SANITIZE=thread, clang; build-tsan)
# Each test binary runs as one process with a googletest filter (sanitized process start-up x
# 1000 ctest cases would cost more than the tests). Any report fails the run (UBSan and TSan
# halt on the first error, ASan always does).
#
# Usage: scripts/sanitize.sh [--asan] [--tsan] [--quick] [--no-build]
#   --asan / --tsan   which (default: both)
#   --quick           the CI subset: kiln_core_tests (core, threading, tensor files: kiln_core
#                     and a few io sources, minutes to build) under each sanitizer, and the light
#                     fuzz harnesses' regressions (full runs: scripts/nightly.sh)
#   --no-build        use the build folders as they are
# Environment: KILN_SANITIZE_JOBS (build jobs, default nproc).
set -euo pipefail
cd "$(dirname "$0")/.."
asan=0 tsan=0 quick=0 build=1
while [ $# -gt 0 ]; do
  case "$1" in
    --asan) asan=1 ;;
    --tsan) tsan=1 ;;
    --quick) quick=1 ;;
    --no-build) build=0 ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "sanitize.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
[ "$asan" = 0 ] && [ "$tsan" = 0 ] && asan=1 && tsan=1
jobs=${KILN_SANITIZE_JOBS:-$(nproc)}

# The backend cases that go through the kernels (as scripts/ci-arm.sh), for the full runs.
backend_subset='*_Gemm*:*_gemm*:*matmul*:*_conv*:*Conv*:*pool*:*Pool*:*norm*:*Norm*:*_relu*'
backend_subset+=':*_lstm*:*_gru*:*_rnn*:*_reduce*:*_loop*:*_scan*:*_if*:*simple_*'
# Threaded code under TSan: the pool and teams, every kernel op that splits work, the models
# (their default thread count is the core count).
tsan_filter='CoreThreading*:CoreTeam*:Kernels*:OpsConvPacked*:OpsMatMulPacked*:OpsLstmPacked*'
tsan_filter+=':OpsNormF32Threads*:OpsVectorized*:OpsMaxPoolValues*:ConcatConvs*:*/SharedModel.*'
tsan_filter+=':*/ConcurrentSessions.*:ModelStages*:TfKwsRecurrent*:KwsModel*:SileroSymbolic*:Codegen*:ControlLoop*'

configure() {  # DIR SANITIZERS [extra cmake args]
  local dir=$1 san=$2
  shift 2
  CC=clang CXX=clang++ cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS_RELEASE="-O1 -gline-tables-only" -DKILN_SANITIZE="$san" \
    -DKILN_BUILD_BENCHMARKS=OFF "$@" >/dev/null
}

status=0
run() {  # NAME COMMAND...: runs, records failure, keeps going
  local name=$1
  shift
  local t0=$SECONDS
  echo "sanitize: $name: $*"
  if "$@"; then
    echo "sanitize: $name: clean ($((SECONDS - t0)) s)"
  else
    echo "sanitize: $name: FAILED ($((SECONDS - t0)) s)"
    status=1
  fi
}

light="npy npz tensor_pb nnef_dat wav"
if [ "$asan" = 1 ]; then
  dir=build-fuzz
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  if [ "$quick" = 1 ]; then
    if [ "$build" = 1 ]; then
      configure "$dir" address,undefined -DKILN_FUZZ=ON
      targets=(kiln_core_tests)
      for h in $light; do targets+=("kiln_fuzz_$h"); done
      nice cmake --build "$dir" -j "$jobs" --target "${targets[@]}"
    fi
    run "asan+ubsan core tests" "$dir/tests/fuzz/kiln_core_tests" --gtest_brief=1
    for h in $light; do
      for d in tests/fuzz/regressions/$h tests/fuzz/seeds/$h; do
        [ -d "$d" ] && run "asan+ubsan replay $d" "$dir/fuzz/kiln_fuzz_$h" -runs=0 "$d"
      done
    done
  else
    if [ "$build" = 1 ]; then
      configure "$dir" address,undefined -DKILN_FUZZ=ON
      nice cmake --build "$dir" -j "$jobs" --target kiln kiln_tests kiln_backend_tests kiln_fuzz_replay
    fi
    run "asan+ubsan unit/cli/model tests" "$dir/tests/kiln_tests" --gtest_brief=1
    run "asan+ubsan backend suite" "$dir/tests/kiln_backend_tests" --gtest_brief=1
    for d in tests/fuzz/regressions/* tests/fuzz/seeds/*; do
      [ -d "$d" ] || continue
      h=$(basename "$d")
      [ "$h" = src ] && continue
      run "asan+ubsan fuzz replay $d" "$dir/kiln_fuzz_replay" "$h" "$d"
    done
  fi
fi

if [ "$tsan" = 1 ]; then
  dir=build-tsan
  export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
  if [ "$quick" = 1 ]; then
    if [ "$build" = 1 ]; then
      configure "$dir" thread
      nice cmake --build "$dir" -j "$jobs" --target kiln_core_tests
    fi
    run "tsan core tests" "$dir/tests/fuzz/kiln_core_tests" --gtest_brief=1
  else
    if [ "$build" = 1 ]; then
      configure "$dir" thread
      nice cmake --build "$dir" -j "$jobs" --target kiln kiln_tests kiln_backend_tests
    fi
    run "tsan threaded tests" "$dir/tests/kiln_tests" --gtest_filter="$tsan_filter" --gtest_brief=1
    run "tsan backend suite" "$dir/tests/kiln_backend_tests" --gtest_filter="$backend_subset" \
      --gtest_brief=1
  fi
fi

[ "$status" = 0 ] && echo "sanitize: all clean" || echo "sanitize: FAILURES above"
exit "$status"
