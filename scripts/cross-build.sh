#!/usr/bin/env bash
# Cross-builds kiln for a Raspberry Pi class ARM target and runs its tests under qemu-user.
#
# Usage: scripts/cross-build.sh aarch64|armv7 [--no-setup] [--no-test]
#   aarch64   64-bit ARM (Pi 3/4/5, 64-bit OS): g++-aarch64-linux-gnu, qemu-aarch64 -cpu cortex-a72
#   armv7     32-bit ARMv7 hard float (32-bit Raspberry Pi OS): g++-arm-linux-gnueabihf,
#             qemu-arm -cpu cortex-a7
#   --no-setup  skip scripts/setup-cross.sh (packages and sysroot already there)
#   --no-test   build only
#
# Environment: KILN_CROSS_BUILD_DIR (default build-<arch>), KILN_SHARED_MODELS (default
# ../shared/models, else ../../shared/models), KILN_CROSS_SYSROOT (default
# /opt/kiln-cross/<triplet>), JOBS (default nproc).
#
# The build lands in build-<arch>/ (kiln, tests/kiln_tests, tests/kiln_backend_tests); copy
# build-<arch>/kiln to the board, it needs the runtime libraries of the -dev packages
# (libprotobuf32, libonnx1, libarchive13, libfmt9, libspdlog1.10) installed there.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
[ $# -ge 1 ] || usage
arch=$1
shift
case "$arch" in
  aarch64 | arm64 | aarch64-linux-gnu) arch=aarch64 triplet=aarch64-linux-gnu ;;
  armv7 | armhf | arm-linux-gnueabihf) arch=armv7 triplet=arm-linux-gnueabihf ;;
  *) usage ;;
esac
setup=1 test=1
for a in "$@"; do
  case "$a" in
    --no-setup) setup=0 ;;
    --no-test) test=0 ;;
    *) usage ;;
  esac
done

jobs=${JOBS:-$(nproc)}
build=${KILN_CROSS_BUILD_DIR:-build-$arch}

start=$(date +%s)
if [ "$setup" = 1 ]; then bash scripts/setup-cross.sh "$arch"; fi

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKILN_WERROR=ON \
  -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchains/$triplet.cmake"
cmake --build "$build" -j "$jobs"
built=$(date +%s)
echo "cross-build: $arch built in $((built - start)) s"

if [ "$test" = 1 ]; then
  file "$build/kiln" | grep -q "ARM" || {
    echo "cross-build: $build/kiln is not an ARM binary" >&2
    exit 1
  }
  ctest --test-dir "$build" -j "$jobs" --output-on-failure
  echo "cross-build: $arch tests under qemu took $(($(date +%s) - built)) s"
fi
