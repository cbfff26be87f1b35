#!/usr/bin/env bash
# The ARM leg's Debian packages (scripts/ci-arm.sh runs it after its tests): cpack in a cross
# build folder (kiln, libkiln-dev and, with libkiln.so, python3-kiln for arm64 / armhf, into
# BUILD/packages), then kiln's package unpacked with dpkg -x and its kiln run under qemu on a
# shared model (kws_tdnn, --assert-output-bundle), and libkiln.so's package checked for the
# target's architecture.
#
# Usage: scripts/ci-arm-packages.sh BUILD_DIR aarch64|armv7
# The build folder must be configured with -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON (cpack then
# builds nothing: it packages kiln, kiln_archive, kiln_shared and kiln_docs as already built) and hold
# those targets. KILN_SHARED_MODELS: the shared models (else only `kiln --version` runs).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
build=$1 arch=$2
case "$arch" in
  aarch64) triplet=aarch64-linux-gnu elf="ARM aarch64" debarch=arm64 cpu=cortex-a72 qemu=qemu-aarch64 ;;
  armv7) triplet=arm-linux-gnueabihf elf="32-bit .* ARM" debarch=armhf cpu=cortex-a7 qemu=qemu-arm ;;
  *) echo "ci-arm-packages: unknown arch $arch" >&2; exit 2 ;;
esac
models=${KILN_SHARED_MODELS:-}
grep -q '^CMAKE_SKIP_INSTALL_ALL_DEPENDENCY:[A-Z]*=ON' "$build/CMakeCache.txt" || {
  echo "ci-arm-packages: $build is not configured with -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON" \
    "(cpack would build every target)" >&2
  exit 1
}

rm -rf "$build/packages"
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$build/packages" >"$build/cpack.log" 2>&1 || {
  cat "$build/cpack.log"
  echo "ci-arm-packages: cpack failed" >&2
  exit 1
}
rm -rf "$build/packages/_CPack_Packages"
echo "ci-arm-packages: $(cd "$build/packages" && ls -- *.deb | tr '\n' ' ')"
status=0
kiln_deb=$(ls "$build"/packages/kiln_*_"$debarch".deb)
dpkg-deb -f "$kiln_deb" Package Version Architecture Depends | sed 's/^/ci-arm-packages:   /'
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
for deb in "$build"/packages/*.deb; do dpkg -x "$deb" "$root"; done
file "$root/usr/bin/kiln" | grep -q "$elf" || {
  echo "ci-arm-packages: the packaged kiln is not an $arch binary" >&2
  status=1
}
so=$(find "$root/usr/lib" -name 'libkiln.so.*.*.*' | head -1)
if [ -n "$so" ]; then
  file -L "$so" | grep -q "$elf" || {
    echo "ci-arm-packages: the packaged $(basename "$so") is not an $arch library" >&2
    status=1
  }
  echo "ci-arm-packages: $(basename "$so"): $(file -L "$so" | cut -d: -f2 | cut -d, -f1-2)"
fi
sysroot=$(sed -n 's/^KILN_CROSS_SYSROOT:PATH=//p' "$build/CMakeCache.txt")
cached_qemu=$(sed -n 's/^KILN_QEMU:FILEPATH=//p' "$build/CMakeCache.txt")
qemu=${cached_qemu:-$qemu}
run_packaged() { "$qemu" -cpu "$cpu" -L "${sysroot:-/usr/$triplet}" "$root/usr/bin/kiln" "$@"; }
echo "ci-arm-packages: packaged kiln under $qemu -cpu $cpu: $(run_packaged --version)"
if [ -n "$models" ] && [ -f "$models/kws_tdnn/model.onnx" ]; then
  if run_packaged run "$models/kws_tdnn/model.onnx" --input-bundle "$models/kws_tdnn/test_data_set_0" \
    --assert-output-bundle "$models/kws_tdnn/test_data_set_0"; then
    echo "ci-arm-packages: the packaged $debarch kiln matches kws_tdnn's reference under qemu"
  else
    echo "ci-arm-packages: the packaged kiln failed on kws_tdnn under qemu" >&2
    status=1
  fi
else
  echo "ci-arm-packages: warning: no shared models: the packaged kiln ran --version only"
fi
exit "$status"
