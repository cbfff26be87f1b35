#!/usr/bin/env bash
# kiln's Debian packages installed the way a user installs them, into a clean Debian 12 root:
# debootstrap (minbase) makes the root once, each run starts from a pristine copy of it, then in
# a chroot `dpkg -i` of kiln, libkiln-dev and python3-kiln, `apt-get -f install` for their
# Depends from the Debian mirror (so the Depends must be right), and the installed files run:
# `kiln --version`, `kiln run` on a shared model, examples/embed/embed.c built with
# `pkg-config --cflags --libs kiln` and examples/embed/embed.py, each compared with the build
# tree's `kiln run`.
#
# Usage: scripts/deb-chroot-test.sh [BUILD_DIR]   (default build; a build with KILN_BUILD_SHARED)
# Needs root (chroot, mounts), debootstrap and the Debian mirror (deb.debian.org): a manual or
# nightly leg, not part of CI. Exit 77 when root or debootstrap is missing.
# Environment: KILN_DEB_ROOT_CACHE (default /var/tmp/kiln-bookworm-minbase.tar), KILN_SHARED_MODELS.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
models=${KILN_SHARED_MODELS:-$src/../shared/models}
cache=${KILN_DEB_ROOT_CACHE:-/var/tmp/kiln-bookworm-minbase.tar}
mirror=http://deb.debian.org/debian
say() { echo "deb-chroot-test: $*"; }
fail() {
  say "FAILED: $*"
  exit 1
}
[ "$(id -u)" = 0 ] || { say "needs root (chroot)"; exit 77; }
command -v debootstrap > /dev/null || { say "needs debootstrap (apt-get install debootstrap)"; exit 77; }
model=$models/kws_tdnn
[ -f "$model/model.onnx" ] || fail "no shared model kws_tdnn in $models (KILN_SHARED_MODELS)"

tmp=$(mktemp -d /var/tmp/kiln-deb-chroot.XXXXXX)
root=$tmp/root
cleanup() {
  for m in proc dev/pts dev; do mountpoint -q "$root/$m" 2> /dev/null && umount -l "$root/$m"; done
  rm -rf "$tmp"
}
trap cleanup EXIT

if [ ! -f "$cache" ]; then
  say "debootstrap --variant=minbase bookworm (once; cached in $cache)"
  debootstrap --variant=minbase bookworm "$tmp/fresh" "$mirror" > "$tmp/debootstrap.log" 2>&1 ||
    { tail -20 "$tmp/debootstrap.log"; fail "debootstrap failed"; }
  tar -C "$tmp/fresh" -cf "$cache.part" . && mv "$cache.part" "$cache"
  rm -rf "$tmp/fresh"
fi
mkdir -p "$root"
tar -C "$root" -xf "$cache"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
cp /etc/resolv.conf "$root/etc/resolv.conf"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }

# The packages, as CI's api.deb_packages builds them.
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/debs" > "$tmp/cpack.log" 2>&1 ||
  { cat "$tmp/cpack.log"; fail "cpack failed"; }
mkdir -p "$root/tmp/debs" "$root/tmp/model" "$root/tmp/embed"
cp "$tmp"/debs/*.deb "$root/tmp/debs/"
say "packages: $(cd "$root/tmp/debs" && ls ./*.deb | xargs -n1 basename | tr '\n' ' ')"
cp -r "$model/model.onnx" "$model/test_data_set_0" "$root/tmp/model/"
cp "$src"/examples/embed/embed.c "$src"/examples/embed/embed.py "$root/tmp/embed/"

in_root apt-get update -qq > "$tmp/apt.log" 2>&1 || { cat "$tmp/apt.log"; fail "apt-get update"; }
# dpkg -i alone stops at the first missing dependency (as it does for a user); apt-get -f
# installs the Depends the packages declare and finishes the configuration.
if in_root sh -c 'dpkg -i /tmp/debs/*.deb' > "$tmp/dpkg.log" 2>&1; then
  say "dpkg -i: installed with no missing dependency"
else
  say "dpkg -i: dependencies missing in the clean root (expected): $(grep -o 'depends on [^;]*' "$tmp/dpkg.log" | sort -u | head -5 | tr '\n' ' ')"
fi
in_root apt-get -y -f --no-install-recommends install > "$tmp/apt-f.log" 2>&1 ||
  { tail -30 "$tmp/apt-f.log"; fail "apt-get -f install"; }
for p in kiln libkiln-dev python3-kiln; do
  status=$(in_root dpkg-query -W -f '${Status}' "$p" 2> /dev/null || true)
  [ "$status" = "install ok installed" ] || fail "$p is '$status' after apt-get -f install"
done
say "dpkg-query: kiln, libkiln-dev, python3-kiln 'install ok installed' ($(grep -c '^Setting up' "$tmp/apt-f.log") packages set up by apt-get -f)"

version=$(in_root kiln --version) || fail "kiln --version"
say "installed kiln --version: $version"
[ "$(in_root sh -c 'command -v kiln')" = /usr/bin/kiln ] || fail "kiln is not /usr/bin/kiln"

# The reference: the build tree's kiln on the host.
name=$("$build/kiln" dump "$model/model.onnx" 2> /dev/null | awk '$2 == "Source" {print $3; exit}')
want=$("$build/kiln" run "$model/model.onnx" --input-bundle "$model/test_data_set_0" 2> /dev/null)
same() {
  /usr/bin/python3 "$src/tests/api/same_output.py" "$want" "$2" > "$tmp/same.log" ||
    { cat "$tmp/same.log"; fail "$1 differs from the build tree's kiln run"; }
  say "$1: same output as the build tree's kiln run"
}
got=$(in_root kiln run /tmp/model/model.onnx --input-bundle /tmp/model/test_data_set_0 2> /dev/null) ||
  fail "installed kiln run"
same "installed kiln run" "$got"
got=$(in_root python3 /tmp/embed/embed.py /tmp/model/model.onnx "$name=/tmp/model/test_data_set_0/input_0.pb" 2>&1) ||
  fail "embed.py with the installed python3-kiln: $got"
same "embed.py (installed python3-kiln)" "$got"
in_root apt-get -y --no-install-recommends install gcc libc6-dev pkg-config > "$tmp/apt-cc.log" 2>&1 ||
  { tail -20 "$tmp/apt-cc.log"; fail "apt-get install gcc pkg-config"; }
in_root sh -c 'cc -std=c11 -Wall -Werror /tmp/embed/embed.c -o /tmp/embed/embed_c $(pkg-config --cflags --libs kiln)' ||
  fail "embed.c does not build with pkg-config against the installed libkiln-dev"
got=$(in_root /tmp/embed/embed_c /tmp/model/model.onnx /tmp/model/test_data_set_0/input_0.pb 2>&1) ||
  fail "embed_c: $got"
same "embed.c (pkg-config, installed libkiln)" "$got"
# Removal leaves nothing of kiln behind.
in_root apt-get -y purge kiln libkiln-dev python3-kiln > "$tmp/purge.log" 2>&1 || fail "apt-get purge"
left=$(in_root sh -c 'ls /usr/bin/kiln /usr/lib/*/libkiln* /usr/lib/libkiln* /usr/include/kiln 2>/dev/null' || true)
[ -z "$left" ] || fail "left after purge: $left"
say "apt-get purge: no kiln file left"
say "OK: clean Debian 12 root (debootstrap minbase), dpkg -i + apt-get -f install, installed kiln,"
say "    embed.py and embed.c (pkg-config) match: $want"
