#!/usr/bin/env bash
# The aarch64 leg of CI: cross-builds kiln for 64-bit ARM (ccache applies) and runs, under
# qemu-aarch64 -cpu cortex-a72 (a Raspberry Pi 4 core), with the NEON kernels and again with
# KILN_ISA=generic:
#   - the kernel tests (tests/kernels: every kernel against its reference, edge shapes),
#   - the shared ONNX models (../shared/models, when present) through `kiln run
#     --assert-output-bundle`,
#   - a subset of the ONNX backend suite (KILN_CI_ARM_BACKEND_FILTER, a googletest filter),
# then builds the target's Debian packages (cpack: kiln, libkiln-dev, python3-kiln for arm64 /
# armhf, in <build>/packages), unpacks kiln's with dpkg -x and runs that kiln on a shared model
# under qemu.
#
# Usage: scripts/ci-arm.sh [--full] [--arch armv7]
#   --full         also builds and runs every unit test (kiln_tests) both ways
#   --arch armv7   the same for 32-bit ARMv7 (qemu-arm -cpu cortex-a7) instead of aarch64
#
# Environment:
#   KILN_CI_ARM=skip             skip the leg (says so loudly; exit 0)
#   KILN_CI_ARM_BUILD_DIR        build folder (default build-ci-<arch>)
#   KILN_CI_ARM_BACKEND_FILTER   googletest filter of backend cases (default: see below)
#   KILN_CI_ARM_SHARED           OFF (default) or ON: build libkiln.so (PIC libraries) and so
#                                the python3-kiln package; OFF packages kiln and libkiln-dev only
#                                (the tested path so far: an arm64 libkiln.so has not been linked
#                                and run yet; nightly.sh runs the leg with ON)
#   KILN_SHARED_MODELS           folder of the shared models (default: ../shared/models, then
#                                ../../shared/models)
#
# .ci/run runs it after scripts/test.sh. Installs its packages with scripts/setup-cross.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
full=0 arch=aarch64
while [ $# -gt 0 ]; do
  case "$1" in
    --full) full=1 ;;
    --arch)
      [ $# -ge 2 ] || usage
      arch=$2
      shift
      ;;
    *) usage ;;
  esac
  shift
done
case "$arch" in
  aarch64) triplet=aarch64-linux-gnu elf="ARM aarch64" ;;
  armv7) triplet=arm-linux-gnueabihf elf="32-bit .* ARM" ;;
  *) usage ;;
esac

if [ "${KILN_CI_ARM:-}" = skip ]; then
  echo "=================================================================="
  echo "ci-arm: SKIPPED because KILN_CI_ARM=skip: the $arch build and its"
  echo "ci-arm: qemu tests did NOT run; nothing about ARM was checked."
  echo "=================================================================="
  exit 0
fi

# The backend cases that go through the kernels this leg checks (matrix products, convolutions,
# pooling, normalizations, element-wise math and activations, recurrent cells, reductions),
# plus the simple/ and pytorch-* model folders. Building kiln_backend_tests costs two files;
# running the subset takes seconds.
default_filter='*_Gemm*:*_gemm*:*matmul*:*_conv*:*Conv*:*pool*:*Pool*:*norm*:*Norm*'
default_filter+=':*_relu*:*_sigmoid*:*_tanh*:*_exp*:*_erf*:*_softmax*:*_gelu*:*_add*:*_mul*'
default_filter+=':*_div*:*_sub*:*_lstm*:*_gru*:*_rnn*:*_reduce*:*_einsum*:*simple_*:*pytorch_*'
filter=${KILN_CI_ARM_BACKEND_FILTER:-$default_filter}

build=${KILN_CI_ARM_BUILD_DIR:-build-ci-$arch}
models=${KILN_SHARED_MODELS:-}
if [ -z "$models" ]; then
  for d in ../shared/models ../../shared/models; do
    if [ -d "$d" ]; then
      models=$(cd "$d" && pwd)
      break
    fi
  done
fi

t0=$(date +%s)
echo "ci-arm: load: $(uptime)"
bash scripts/setup-cross.sh "$arch"
t1=$(date +%s)

shared=${KILN_CI_ARM_SHARED:-OFF}
# What the packages hold: the executable, libkiln.a (kiln_archive) and libkiln.so (and
# kiln_docs, below).
targets=(kiln kiln_kernel_tests kiln_backend_tests kiln_archive)
if [ "$shared" = ON ]; then
  targets+=(kiln_shared)
fi
labels="kernels|backend|models"
if [ "$full" = 1 ]; then
  targets+=(kiln_tests)
  labels="kernels|backend|models|unit"
fi
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKILN_WERROR=ON \
  -DKILN_BUILD_BENCHMARKS=OFF -DKILN_BUILD_SHARED="$shared" -DKILN_UNITY_BUILD=ON \
  -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON \
  -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchains/$triplet.cmake" \
  -DKILN_SHARED_MODELS="${models:-/nonexistent}" \
  "-DKILN_CROSS_BACKEND_FILTER=$filter" >/dev/null
# kiln.1.gz and the bash completion (kiln_docs: the target's kiln run under qemu at build time,
# cmake/KilnInstall.cmake), which the kiln package holds; the target exists when qemu was found.
# (grep reads the whole list: with pipefail, `grep -q` closing the pipe early would fail ninja.)
if ninja -C "$build" -t targets all 2>/dev/null | grep -c '^kiln_docs:' >/dev/null; then
  targets+=(kiln_docs)
fi
# ccache's counters before and after (not zeroed: the cache may be shared).
ccache_counts() {
  if command -v ccache >/dev/null; then
    ccache --print-stats 2>/dev/null |
      awk '$1 ~ /^(direct|preprocessed)_cache_hit$/ {h += $2} $1 == "cache_miss" {m = $2}
           END {print h + 0, m + 0}'
  else
    echo "0 0"
  fi
}
# CPU seconds (user + sys) of this shell's finished children, into the variable named $1: the
# build's cost whatever else the machine runs (`times` must run in this shell, not in a
# subshell: no $(...) around it).
cpu_seconds() {
  local f
  f=$(mktemp)
  times >"$f"
  printf -v "$1" '%s' "$(awk 'NR == 2 {
      n = split($0, t, " ")
      for (i = 1; i <= n; i++) { split(t[i], p, /[ms]/); s += p[1] * 60 + p[2] }
      printf "%d", s
    }' "$f")"
  rm -f "$f"
}
read -r hits0 misses0 < <(ccache_counts)
cpu_seconds cpu0
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"
t2=$(date +%s)
cpu_seconds cpu1
read -r hits1 misses1 < <(ccache_counts)
echo "ci-arm: build: $((t2 - t1)) s wall, $((cpu1 - cpu0)) s CPU; ccache: $((hits1 - hits0))" \
  "hits, $((misses1 - misses0)) misses"

file "$build/kiln" | grep -q "$elf" || {
  echo "ci-arm: $build/kiln is not an $arch binary" >&2
  exit 1
}
if [ -z "$models" ]; then
  echo "ci-arm: warning: no shared models found (set KILN_SHARED_MODELS): model tests not run"
fi
status=0
ctest --test-dir "$build" -j "$(nproc)" -L "$labels" --output-on-failure || status=$?
t3=$(date +%s)

# The target's Debian packages, and the packaged kiln on a shared model under qemu.
KILN_SHARED_MODELS="$models" bash scripts/ci-arm-packages.sh "$build" "$arch" || status=1
t4=$(date +%s)

echo "ci-arm: ISAs exercised under qemu ($arch): neon and generic (KILN_ISA=generic); the x86"
echo "ci-arm: ISAs are tested by scripts/test.sh (ctest -L isa)"
echo "ci-arm: $arch leg: setup $((t1 - t0)) s, build $((t2 - t1)) s, tests under qemu" \
  "$((t3 - t2)) s, packages $((t4 - t3)) s, total $((t4 - t0)) s (labels: $labels)"
echo "ci-arm: load: $(uptime)"
exit "$status"
