#!/usr/bin/env bash
# Installs what a cross build of kiln for a Raspberry Pi class ARM target needs, from Debian
# packages only:
#   - the host packages of scripts/setup.sh (host protoc generates the ONNX protobuf code),
#   - the cross compiler g++-<triplet> and qemu-user (runs the cross-built tests),
#   - the target's libraries and headers (the :arm64 / :armhf -dev packages kiln links against),
#     unpacked into a sysroot, /opt/kiln-cross/<triplet> unless KILN_CROSS_SYSROOT says otherwise.
#
# Usage: scripts/setup-cross.sh aarch64|armv7   (aliases: arm64, aarch64-linux-gnu, armhf,
#                                                 arm-linux-gnueabihf)
#
# The target packages come from Debian multiarch (`dpkg --add-architecture arm64|armhf` and the
# `:arm64`/`:armhf` package indexes), but they are unpacked into a sysroot instead of being
# installed next to the host's libraries: an installed `Multi-Arch: same` package must have the
# very same version on every architecture, so a host that took a security update the foreign
# index does not carry yet (or whose foreign security index is unavailable) cannot install them,
# and once installed they hold back the host's own upgrades. The sysroot has neither problem.
# Set KILN_CROSS_MULTIARCH=1 to install them with dpkg instead (classic multiarch; the toolchain
# files then use /usr/lib/<triplet>): use `-DKILN_CROSS_SYSROOT=` (empty) when configuring.
#
# Non-interactive and idempotent: a second run with unchanged package versions does nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  echo "usage: $0 aarch64|armv7" >&2
  exit 2
}
[ $# -eq 1 ] || usage
case "$1" in
  aarch64 | arm64 | aarch64-linux-gnu) debarch=arm64 triplet=aarch64-linux-gnu ;;
  armv7 | armhf | arm-linux-gnueabihf) debarch=armhf triplet=arm-linux-gnueabihf ;;
  *) usage ;;
esac

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive

bash scripts/setup.sh

native=$(dpkg --print-architecture)
target_packages=(
  libonnx-dev libprotobuf-dev libfmt-dev libspdlog-dev libgtest-dev libarchive-dev zlib1g-dev
  libre2-dev libcli11-dev nlohmann-json3-dev
)

# 1. Host tools: the cross compiler and the user-mode emulator.
host_packages=("g++-$triplet" qemu-user)
missing=()
for p in "${host_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

# 2. The target architecture's package index. Only the native and the target architecture are
# refreshed, so a broken index of some other foreign architecture cannot get in the way.
need_update=0
foreign=$(dpkg --print-foreign-architectures)
if ! grep -qx "$debarch" <<<"$foreign"; then
  echo "setup-cross: dpkg --add-architecture $debarch"
  $SUDO dpkg --add-architecture "$debarch"
  need_update=1
fi
if [ -z "$(apt-cache madison "libonnx-dev:$debarch" 2>/dev/null)" ]; then need_update=1; fi
if [ ${#missing[@]} -gt 0 ] || [ "$need_update" -eq 1 ]; then
  echo "setup-cross: apt-get update ($native, $debarch)"
  $SUDO apt-get update -qq -o "APT::Architectures::=$native" -o "APT::Architectures::=$debarch" ||
    echo "setup-cross: warning: apt-get update reported errors; going on with the indexes it has"
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup-cross: installing ${missing[*]}"
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ "${KILN_CROSS_MULTIARCH:-0}" = 1 ]; then
  echo "setup-cross: installing ${target_packages[*]/%/:$debarch} with dpkg (multiarch)"
  $SUDO apt-get install -y -qq --no-install-recommends "${target_packages[@]/%/:$debarch}"
  exit 0
fi

# 3. The sysroot: the target packages and everything they depend on, as apt resolves them for an
# empty $debarch system, unpacked with dpkg-deb.
sysroot=${KILN_CROSS_SYSROOT:-/opt/kiln-cross/$triplet}
cache=${KILN_CROSS_CACHE:-/var/cache/kiln-cross/$debarch}
$SUDO mkdir -p "$cache/archives/partial" "$cache/state"
$SUDO touch "$cache/state/status"
apt_target=(
  -o "Dir::State::status=$cache/state/status"
  -o "Dir::Cache::archives=$cache/archives"
  -o "APT::Architecture=$debarch"
  -o "APT::Architectures::=$debarch"
  -o "APT::Architectures::=all"
  -o "Debug::NoLocking=1"
)
plan=$(apt-get "${apt_target[@]}" install -s --no-install-recommends "${target_packages[@]}" |
  awk '/^Inst /{print $2, $3}' | tr -d '(' | sort)
if [ -z "$plan" ]; then
  echo "setup-cross: apt found no $debarch packages for ${target_packages[*]}" >&2
  echo "setup-cross: (is the $debarch index there? try: apt-get update)" >&2
  exit 1
fi
if [ -f "$sysroot/.kiln-sysroot" ] && [ "$(cat "$sysroot/.kiln-sysroot")" = "$plan" ]; then
  echo "setup-cross: sysroot $sysroot is up to date ($(echo "$plan" | wc -l) packages)"
  exit 0
fi

echo "setup-cross: downloading $(echo "$plan" | wc -l) $debarch packages"
$SUDO apt-get "${apt_target[@]}" install -y -qq --download-only --no-install-recommends \
  "${target_packages[@]}"

echo "setup-cross: unpacking into $sysroot"
tmp="$sysroot.new"
$SUDO rm -rf "$tmp"
$SUDO mkdir -p "$tmp"
while read -r name version; do
  pkg=${name%%:*}
  file_version=${version//:/%3a}
  deb=$(ls "$cache/archives/${pkg}_${file_version}_"*.deb 2>/dev/null | head -n 1 || true)
  if [ -z "$deb" ]; then
    echo "setup-cross: $pkg $version was not downloaded" >&2
    exit 1
  fi
  $SUDO dpkg-deb -x "$deb" "$tmp"
done <<<"$plan"

# Absolute symbolic links (libz.so -> /lib/<triplet>/libz.so.1, ...) point into the host once the
# files live in a sysroot: make them relative so the compiler, the linker and qemu all follow
# them inside it.
while IFS= read -r -d '' link; do
  target=$(readlink "$link")
  case "$target" in
    /*) $SUDO ln -sfn "$(realpath -m -s --relative-to="$(dirname "$link")" "$tmp$target")" "$link" ;;
  esac
done < <(find "$tmp" -type l -print0)

echo "$plan" | $SUDO tee "$tmp/.kiln-sysroot" >/dev/null
$SUDO rm -rf "$sysroot"
$SUDO mv "$tmp" "$sysroot"
echo "setup-cross: sysroot $sysroot ready ($(echo "$plan" | wc -l) packages)"
