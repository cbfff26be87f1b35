#!/usr/bin/env bash
# Installs every Debian package kiln needs to build, test and benchmark.
# Non-interactive and idempotent; run as root (or with sudo available).
set -euo pipefail

packages=(
  build-essential g++ clang cmake ninja-build pkg-config git ccache
  libonnx-dev libprotobuf-dev protobuf-compiler
  libcli11-dev nlohmann-json3-dev libspdlog-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libarchive-dev zlib1g-dev libre2-dev
  # ImageDecoder's codecs (each optional at build time: CMake finds them)
  libjpeg62-turbo-dev libpng-dev libwebp-dev
  libonnx-testdata
  python3 clang-format
  # the Python module's tests (python/tests: ctypes over libkiln, or in an interpreter linked with it)
  python3-numpy python3-pytest libpython3-dev
  # tests/onnx_pyref/gen: the expected images of ImageDecoder's cases
  python3-pil
  libclang-rt-14-dev
  # kiln.1 checked by tests/cli/man_page_test.sh (groff -ww, man --warnings), as lintian does
  groff-base man-db
  # headless rendering of `kiln profile --html` (tests/cli/html_report_browser_test.sh)
  chromium
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages already installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq || echo "setup: apt-get update reported errors (an unreachable index?); installing from the cached lists"
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
