#!/usr/bin/env bash
# The nightly legs that do not fit CI's 45 minutes (docs/testing.md):
#   1. full sanitizer runs: every unit, CLI and model test and the whole expected-pass backend
#      suite under ASan + UBSan, the threaded tests, models and a backend subset under TSan
#      (scripts/sanitize.sh);
#   2. long fuzz runs of every harness (scripts/fuzz.sh --seconds N, two at a time, nice 19),
#      whose findings must be fixed and committed under tests/fuzz/regressions/;
#   3. the ARM legs with every unit test (scripts/ci-arm.sh --full, aarch64 and armv7);
#   4. every backend node model with its inputs redeclared empty with huge dims
#      (tests/fuzz/empty_dims_models.py), replayed under ASan+UBSan within 10 s each;
#   5. the amd64 packages installed with dpkg -i + apt-get -f into a clean Debian 12 root
#      (scripts/deb-chroot-test.sh: root, debootstrap and the Debian mirror; skipped, exit 77,
#      without root or debootstrap).
# Usage: scripts/nightly.sh [--fuzz-seconds N] [--skip-arm]   (default 3600 s per harness)
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=3600 arm=1
while [ $# -gt 0 ]; do
  case "$1" in
    --fuzz-seconds) seconds=$2; shift ;;
    --skip-arm) arm=0 ;;
    *) echo "nightly.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
status=0
start=$SECONDS
step() {
  local t0=$SECONDS
  echo "nightly: === $* ==="
  if "$@"; then echo "nightly: ok ($((SECONDS - t0)) s): $*"; else echo "nightly: FAILED ($((SECONDS - t0)) s): $*"; status=1; fi
}
step bash scripts/sanitize.sh
step bash scripts/fuzz.sh --seconds "$seconds" --jobs 2
if [ "$arm" = 1 ]; then
  step env KILN_CI_ARM_SHARED=ON bash scripts/ci-arm.sh --full
  step bash scripts/ci-arm.sh --full --arch armv7
fi
empty_dims() {
  local dir
  dir=$(mktemp -d)
  /usr/bin/python3 tests/fuzz/empty_dims_models.py "$dir" &&
    ASAN_OPTIONS=detect_leaks=0 build-fuzz/kiln_fuzz_replay --max-seconds 10 onnx "$dir"/*.onnx
  local rc=$?
  rm -rf "$dir"
  return $rc
}
[ -x build-fuzz/kiln_fuzz_replay ] && step empty_dims
deb_chroot() {
  bash scripts/deb-chroot-test.sh build
  local rc=$?
  [ $rc = 77 ] && { echo "nightly: deb-chroot-test skipped (no root or debootstrap)"; return 0; }
  return $rc
}
[ -f build/CPackConfig.cmake ] && step deb_chroot
echo "nightly: $((SECONDS - start)) s in all; $([ $status = 0 ] && echo all clean || echo FAILURES above)"
exit $status
