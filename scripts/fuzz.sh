#!/usr/bin/env bash
# Builds the libFuzzer harnesses (clang 14, -fsanitize=fuzzer,address,undefined; build-fuzz/)
# and runs each for a while on its corpus (docs/testing.md).
#
# Usage: scripts/fuzz.sh [--seconds N] [--jobs J] [--no-build] [HARNESS...]
#   --seconds N   run each harness N seconds (default 60)
#   --jobs J      harnesses run at once (default 1); each is one process, nice -n 19
#   --no-build    use build-fuzz as it is
#   HARNESS       names (default: all): onnx onnx_struct tf nnef nnef_dat nnef_tgz nnef_quant
#                 npy npz tensor_pb wav fact
# Environment: KILN_FUZZ_BUILD_DIR (default build-fuzz), KILN_FUZZ_ARGS (more libFuzzer flags).
#
# Limits of every run: -timeout=10 (an input taking > 10 s is a hang), -rss_limit_mb=2048 and
# -malloc_limit_mb=2048 (> 2 GiB is an out-of-memory; the harnesses set a 1 GiB tensor budget so
# hostile models get kiln's "too large" error first). Findings land in
# build-fuzz/artifacts/<harness>/ (crash-*, leak-*, timeout-*, oom-*); the corpus grows in
# build-fuzz/corpus/<harness>/. A finding, once fixed, is committed under
# tests/fuzz/regressions/<harness>/ and ctest replays it. Exit 1 when any run left a finding.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=60 jobs=1 build=1
names=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift ;;
    --jobs) jobs=$2; shift ;;
    --no-build) build=0 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) names+=("$1") ;;
  esac
  shift
done
all=(onnx onnx_struct tf nnef nnef_dat nnef_tgz nnef_quant npy npz tensor_pb wav fact)
[ ${#names[@]} -eq 0 ] && names=("${all[@]}")
dir=${KILN_FUZZ_BUILD_DIR:-build-fuzz}

if [ "$build" = 1 ]; then
  CC=clang CXX=clang++ cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS_RELEASE="-O1 -gline-tables-only" -DKILN_SANITIZE=address,undefined \
    -DKILN_FUZZ=ON -DKILN_BUILD_BENCHMARKS=OFF >/dev/null
  targets=()
  for h in "${names[@]}"; do targets+=("kiln_fuzz_$h"); done
  nice cmake --build "$dir" -j "$(nproc)" --target kiln "${targets[@]}"
fi
[ -d "$dir/corpus/npy" ] || KILN=$dir/kiln bash scripts/fuzz-corpus.sh "$dir/corpus"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
run_one() {
  local h=$1 corpus=$dir/corpus/$1 art=$dir/artifacts/$1/ log=$dir/logs/$1.log
  [ "$h" = onnx_struct ] && corpus=$dir/corpus/onnx
  mkdir -p "$corpus" "$art" "$dir/logs"
  local max_len=4096
  case "$h" in onnx|onnx_struct|tf|nnef_tgz|npy|npz) max_len=65536 ;; esac
  local dict=()
  [ -f "tests/fuzz/dicts/${h%_struct}.dict" ] && dict=(-dict="tests/fuzz/dicts/${h%_struct}.dict")
  local before
  # Findings: crash-*, leak-*, timeout-*, oom-* (slow-unit-* files are not).
  before=$(find "$art" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  touch "$log.start"
  # shellcheck disable=SC2086
  nice -n 19 "$dir/fuzz/kiln_fuzz_$h" "$corpus" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -malloc_limit_mb=2048 -max_len=$max_len -artifact_prefix="$art" \
    -print_final_stats=1 "${dict[@]}" ${KILN_FUZZ_ARGS:-} >"$log" 2>&1 || true
  local execs cov ft corp after
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || true)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | grep -o '[0-9]*' || true)
  ft=$(grep -oE 'ft: [0-9]+' "$log" | tail -1 | grep -o '[0-9]*' || true)
  corp=$(grep -oE 'corp: [0-9]+/[0-9]+[a-zA-Z]*' "$log" | tail -1 | cut -d' ' -f2 || true)
  # A timeout under load may be the machine's, not the input's (libFuzzer's -timeout is wall
  # time; a nice 19 process can wait seconds for a core): replay each new one alone; one that
  # finishes within the limit now is set aside in false-timeouts/, not counted.
  local t
  for t in $(find "$art" -maxdepth 1 -name 'timeout-*' -newer "$log.start" 2>/dev/null); do
    if timeout 60 "$dir/fuzz/kiln_fuzz_$h" -runs=1 -timeout=10 "$t" >/dev/null 2>&1; then
      mkdir -p "$art/false-timeouts"
      mv "$t" "$art/false-timeouts/"
      echo "fuzz: $h: $(basename "$t") ran within 10 s when replayed alone: a load-induced timeout, set aside"
    fi
  done
  after=$(find "$art" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  printf 'fuzz: %-11s %4ss  execs %9s  cov %5s  ft %6s  corpus %-10s  findings %s\n' "$h" \
    "$seconds" "${execs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$((after - before))" \
    | tee -a "$dir/logs/summary.txt"
  if [ "$after" -gt "$before" ]; then
    echo "fuzz: $h FOUND SOMETHING: $(ls -t "$art" | grep -E '^(crash|leak|timeout|oom)-' | head -3 | tr '\n' ' ') (log: $log)"
    grep -m3 -E 'ERROR|SUMMARY|deadly|timeout|out-of-memory' "$log" || true
    return 1
  fi
}

failed=0
running=0
for h in "${names[@]}"; do
  [ -x "$dir/fuzz/kiln_fuzz_$h" ] || { echo "fuzz.sh: no $dir/fuzz/kiln_fuzz_$h" >&2; exit 2; }
  if [ "$jobs" -gt 1 ]; then
    run_one "$h" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
      wait -n || failed=1
      running=$((running - 1))
    fi
  else
    run_one "$h" || failed=1
  fi
done
while [ "$running" -gt 0 ]; do
  wait -n || failed=1
  running=$((running - 1))
done
if [ "$failed" = 1 ]; then
  echo "fuzz: FINDINGS: see $dir/artifacts/ (replay: $dir/kiln_fuzz_replay HARNESS FILE)"
  exit 1
fi
echo "fuzz: ${#names[@]} harnesses, no finding"
