#!/usr/bin/env bash
# Side-by-side timing of kiln and ONNX Runtime (onnxruntime-node, CPU) on the shared models, in
# one run: for every model and thread count, the two programs alternate for ROUNDS rounds of RUNS
# timed inferences each (ONNX Runtime first in odd rounds); the table shows the median of the
# per-round medians and their ratio ORT / kiln (> 1: kiln is faster), and `paired`: the median
# over rounds of each round's own ratio, which cancels most of a slow phase of the host that hits
# both programs of one round.
#
#   scripts/bench-vs-ort.sh [--models "mobilenet_v2 tiny_bert"] [--threads "1 2"] [--runs 30]
#                           [--rounds 3] [--markdown] [--cpu] [--kiln-baseline OLD_KILN]
#                           [--stat median|min]
#
# --stat min: every program's fastest run of each round and the fastest over the rounds (and
# `paired` from the rounds' minima) instead of medians. For a host whose speed shifts in phases
# of seconds (a shared VM: the same binary at 10.5 or 14.5 ms per run for seconds at a time), the
# minima compare the two programs at the same speed of the host; medians mix the phases.
#
# --kiln-baseline OLD_KILN: another kiln executable (e.g. main's, before a change) that takes
# its turn in every round too; the table adds its median and `old / new` (> 1: the new kiln is
# faster), so a change is judged against its base in the same run.
#
# --cpu: also report the mean CPU time per inference of each program (process user + system
# time over the timed runs, all threads; `kiln bench --json`'s cpu_ms, and for ONNX Runtime
# scripts/ort_bench_cpu.js, the same loop as ort_bench.js with process.cpuUsage). CPU time is
# much less disturbed than wall time when other processes load the machine; with 2 threads it
# includes the time the pools spin.
#
# Needs a built build/kiln (cmake --build build --target kiln) and node + npm; installs
# onnxruntime-node into build/ort the first time (npm ci --ignore-scripts, see
# ../shared/bench/README.md). kiln: $KILN_BIN (default build/kiln). Models: $KILN_MODELS or ../shared/models (../../shared/models
# from a worktree).
#
# The Silero VAD models get `-i sr:i64=16000` (KILN_NO_FACTS=1: not given, as a new user runs them): their sample-rate input selects an If branch, and
# declaring it constant lets kiln fold the If and optimize the branch (kiln checks that the
# bundle's sr really is 16000 and fails otherwise). ONNX Runtime gets the same input files.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

models="mobilenet_v2 squeezenet1_1 kws_tdnn lstm_kws tiny_bert silero_vad_v4 silero_vad_v5"
threads_list="1 2"
runs=30
rounds=3
markdown=0
cpu=0
base_kiln=""
stat=median
while [ $# -gt 0 ]; do
  case "$1" in
    --models) models="$2"; shift 2 ;;
    --threads) threads_list="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --markdown) markdown=1; shift ;;
    --cpu) cpu=1; shift ;;
    --kiln-baseline) base_kiln="$2"; shift 2 ;;
    --stat) stat="$2"; shift 2 ;;
    -h|--help) sed -n 2,35p "$0"; exit 0 ;;
    *) echo "bench-vs-ort.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

models_dir="${KILN_MODELS:-}"
if [ -z "$models_dir" ]; then
  for d in "$root/../shared/models" "$root/../../shared/models"; do
    if [ -d "$d" ]; then models_dir="$(cd "$d" && pwd)"; break; fi
  done
fi
[ -n "$models_dir" ] && [ -d "$models_dir" ] || { echo "no models folder (set KILN_MODELS)" >&2; exit 1; }
# ONNX Runtime's timing scripts: ../shared/bench (next to the models, or next to the checkout when
# KILN_MODELS points at another corpus, e.g. benchmarks/corpus/gen_corpus.py's output).
bench_dir="${KILN_ORT_BENCH:-}"
if [ -z "$bench_dir" ]; then
  for d in "$models_dir/../bench" "$root/../shared/bench" "$root/../../shared/bench"; do
    if [ -f "$d/ort_bench.js" ]; then bench_dir="$(cd "$d" && pwd)"; break; fi
  done
fi
[ -n "$bench_dir" ] || { echo "no ONNX Runtime bench scripts (set KILN_ORT_BENCH to ../shared/bench)" >&2; exit 1; }
kiln="${KILN_BIN:-$root/build/kiln}"  # the kiln under test: $KILN_BIN, else build/kiln
[ -x "$kiln" ] || { echo "build/kiln not found: cmake --build build --target kiln" >&2; exit 1; }

if [ ! -d build/ort/node_modules/onnxruntime-node ]; then
  mkdir -p build/ort
  cp "$bench_dir"/ort/package*.json build/ort/
  npm ci --prefix build/ort --ignore-scripts --silent >&2
fi
export NODE_PATH="$root/build/ort/node_modules"

json_field() {  # json_field FIELD < one JSON line
  python3 -c "import json,sys; t=sys.stdin.read(); print(json.loads(t[t.index('{'):])['$1'])"
}
median() { python3 -c "import statistics,sys; print(statistics.median(float(x) for x in sys.argv[1:]))" "$@"; }
case "$stat" in
  median) field=median_ms; over_rounds() { median "$@"; } ;;
  min) field=min_ms; over_rounds() { python3 -c "import sys; print(min(float(x) for x in sys.argv[1:]))" "$@"; } ;;
  *) echo "bench-vs-ort.sh: --stat takes median or min" >&2; exit 2 ;;
esac

rows=()
base_rows=()
for model in $models; do
  dir="$models_dir/$model"
  [ -f "$dir/model.onnx" ] || { echo "skip $model: no model.onnx" >&2; continue; }
  for threads in $threads_list; do
    kiln_ms=() ort_ms=() kiln_cpu=() ort_cpu=() paired=() base_ms=()
    extra=()
    case "$model" in silero_vad_*) [ "${KILN_NO_FACTS:-0}" = 1 ] || extra=(-i sr:i64=16000) ;; esac
    run_kiln() {
      local kj
      kj=$("$kiln" bench "$dir/model.onnx" --input-bundle "$dir/test_data_set_0" "${extra[@]}" \
            --threads "$threads" --runs "$runs" --warmup 5 --json 2>/dev/null)
      kiln_ms+=("$(json_field "$field" <<<"$kj")")
      [ "$cpu" = 1 ] && kiln_cpu+=("$(json_field cpu_ms <<<"$kj")")
      return 0
    }
    run_base() {
      [ -n "$base_kiln" ] || return 0
      local kj
      kj=$("$base_kiln" bench "$dir/model.onnx" --input-bundle "$dir/test_data_set_0" "${extra[@]}" \
            --threads "$threads" --runs "$runs" --warmup 5 --json 2>/dev/null)
      base_ms+=("$(json_field "$field" <<<"$kj")")
    }
    run_ort() {
      local oj
      if [ "$cpu" = 1 ]; then
        oj=$(node "$root/scripts/ort_bench_cpu.js" "$bench_dir" "$dir" "$threads" "$runs" 5)
        ort_cpu+=("$(json_field cpu_ms <<<"$oj")")
      else
        oj=$(node "$bench_dir/ort_bench.js" "$dir" --threads "$threads" --runs "$runs" --warmup 5)
      fi
      ort_ms+=("$(json_field "$field" <<<"$oj")")
    }
    for ((r = 0; r < rounds; r++)); do
      # Odd rounds run ONNX Runtime first, so neither program always follows the other.
      if ((r % 2 == 1)); then run_ort; run_base; run_kiln; else run_kiln; run_base; run_ort; fi
      paired+=("$(python3 -c "print(${ort_ms[-1]} / ${kiln_ms[-1]})")")
    done
    km=$(over_rounds "${kiln_ms[@]}")
    om=$(over_rounds "${ort_ms[@]}")
    ratio=$(python3 -c "print(f'{$om / $km:.2f}')")
    pratio=$(python3 -c "print(f'{float($(median "${paired[@]}")):.2f}')")
    base_note=""
    if [ -n "$base_kiln" ]; then
      bm=$(over_rounds "${base_ms[@]}")
      base_note=" old_kiln=${bm}ms old/new=$(python3 -c "print(f'{$bm / $km:.3f}')")"
      base_rows+=("$model $threads $bm $km $(python3 -c "print(f'{$bm / $km:.3f}')")")
    fi
    if [ "$cpu" = 1 ]; then
      kc=$(median "${kiln_cpu[@]}")
      oc=$(median "${ort_cpu[@]}")
      cratio=$(python3 -c "print(f'{$oc / $kc:.2f}')")
      rows+=("$model $threads $km $om $ratio $pratio $kc $oc $cratio")
      echo "$model threads=$threads kiln=${km}ms ort=${om}ms ratio=$ratio paired=$pratio" \
           "cpu: kiln=${kc}ms ort=${oc}ms ratio=$cratio$base_note" >&2
    else
      rows+=("$model $threads $km $om $ratio $pratio")
      echo "$model threads=$threads kiln=${km}ms ort=${om}ms ratio=$ratio paired=$pratio$base_note" >&2
    fi
  done
done

if [ "$markdown" = 1 ]; then
  if [ "$cpu" = 1 ]; then
    echo "| model | threads | kiln $stat ms | ORT $stat ms | ORT / kiln | paired | kiln CPU ms | ORT CPU ms | ORT / kiln (CPU) |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
  else
    echo "| model | threads | kiln $stat ms | ORT $stat ms | ORT / kiln | paired |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: |"
  fi
  for row in "${rows[@]}"; do
    read -r m t k o q p kc oc cq <<<"$row"
    if [ "$cpu" = 1 ]; then
      printf "| %s | %s | %.3f | %.3f | %s | %s | %.3f | %.3f | %s |\n" "$m" "$t" "$k" "$o" "$q" "$p" "$kc" "$oc" "$cq"
    else
      printf "| %s | %s | %.3f | %.3f | %s | %s |\n" "$m" "$t" "$k" "$o" "$q" "$p"
    fi
  done
else
  if [ "$cpu" = 1 ]; then
    printf "%-16s %7s %12s %12s %10s %7s %12s %12s %10s\n" model threads kiln_ms ort_ms ort/kiln paired kiln_cpu ort_cpu cpu_ratio
  else
    printf "%-16s %7s %12s %12s %10s %7s\n" model threads kiln_ms ort_ms ort/kiln paired
  fi
  for row in "${rows[@]}"; do
    read -r m t k o q p kc oc cq <<<"$row"
    if [ "$cpu" = 1 ]; then
      printf "%-16s %7s %12.3f %12.3f %10s %7s %12.3f %12.3f %10s\n" "$m" "$t" "$k" "$o" "$q" "$p" "$kc" "$oc" "$cq"
    else
      printf "%-16s %7s %12.3f %12.3f %10s %7s\n" "$m" "$t" "$k" "$o" "$q" "$p"
    fi
  done
fi
if [ -n "$base_kiln" ]; then
  echo
  echo "| model | threads | old kiln ms | new kiln ms | old / new |"
  echo "| --- | ---: | ---: | ---: | ---: |"
  for row in "${base_rows[@]}"; do
    read -r m t b k q <<<"$row"
    printf "| %s | %s | %.3f | %.3f | %s |\n" "$m" "$t" "$b" "$k" "$q"
  done
fi
