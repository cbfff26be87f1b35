#!/usr/bin/env bash
# The Debian packages as a user gets them. cpack builds kiln, libkiln-dev and python3-kiln into a
# temporary folder; their control fields (Depends) and file lists are checked; then (CI has no
# network or root for a clean Debian root: scripts/deb-chroot-test.sh installs them with dpkg -i
# into one by hand or nightly) they are unpacked with dpkg -x into a temporary root, where `kiln --version`, examples/embed (C++ and C through find_package, C
# through pkg-config, built against that root only) and examples/embed/embed.py (PYTHONPATH
# there) run a shared model and print what `kiln run` prints.
# Usage: deb_test.sh BUILD_DIR SOURCE_DIR PYTHON3 [MODELS_DIR]; exit 77 (skipped) without models,
# after the package checks. KILN_DEB_RUNTIME_DEPENDS: the cross builds' Depends (CMake cache);
# KILN_DEB_SHARED=OFF: a build without libkiln.so (no python3-kiln, examples linked statically).
set -euo pipefail
build=$1 src=$2 python=$3
models=${KILN_SHARED_MODELS:-${4:-}}
shared=${KILN_DEB_SHARED:-ON}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "deb_test: $*"
  exit 1
}

cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/debs" > "$tmp/cpack.log" 2>&1 ||
  { cat "$tmp/cpack.log"; fail "cpack failed"; }
version=$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$build/CPackConfig.cmake")
arch=$(dpkg --print-architecture)
kiln_deb=$tmp/debs/kiln_${version}_$arch.deb
dev_deb=$tmp/debs/libkiln-dev_${version}_$arch.deb
py_deb=$tmp/debs/python3-kiln_${version}_all.deb
debs=("$kiln_deb" "$dev_deb")
[ "$shared" = ON ] && debs+=("$py_deb")
for deb in "${debs[@]}"; do
  [ -f "$deb" ] || { ls "$tmp/debs"; fail "$(basename "$deb") was not built"; }
done

# Depends: shlibdeps for kiln; the other two depend on this very kiln.
depends() { dpkg-deb -f "$1" Depends; }
names() { tr ',' '\n' | sed -E 's/^ *//; s/[ :(].*//' | grep -v '^$' | sort -u; }
kiln_depends=$(depends "$kiln_deb")
for lib in libc6 libstdc++6 libprotobuf libonnx libarchive libfmt libspdlog libre2; do
  grep -q "$lib" <<< "$kiln_depends" || fail "kiln's Depends lacks $lib: $kiln_depends"
done
if [ -n "${KILN_DEB_RUNTIME_DEPENDS:-}" ]; then
  want=$(names <<< "$kiln_depends") cross=$(names <<< "$KILN_DEB_RUNTIME_DEPENDS")
  [ "$want" = "$cross" ] || fail "KILN_DEB_RUNTIME_DEPENDS (cross builds) names other packages than dpkg-shlibdeps:
  shlibdeps: $(echo $want)
  cross:     $(echo $cross)"
fi
grep -q "kiln (= $version)" <<< "$(depends "$dev_deb")" || fail "libkiln-dev's Depends: $(depends "$dev_deb")"
py_depends="(not built: no libkiln.so)"
if [ "$shared" = ON ]; then
  py_depends=$(depends "$py_deb")
  for dep in "kiln (= $version)" python3-numpy; do
    grep -qF "$dep" <<< "$py_depends" || fail "python3-kiln's Depends lacks $dep: $py_depends"
  done
  [ "$(dpkg-deb -f "$py_deb" Architecture)" = all ] || fail "python3-kiln is not Architecture: all"
else
  [ ! -e "$py_deb" ] || fail "python3-kiln built without libkiln.so"
fi

# Which files go where.
contents() { dpkg-deb -c "$1" | awk '{print $6}' | sed 's|^\./|/|'; }
has() {
  local deb=$1 pattern=$2
  grep -qE "$pattern" <<< "$(contents "$deb")" || fail "$(basename "$deb") has no $pattern"
}
lacks() {
  local deb=$1 pattern=$2
  ! grep -qE "$pattern" <<< "$(contents "$deb")" || fail "$(basename "$deb") should not hold $pattern"
}
has "$kiln_deb" '^/usr/bin/kiln$'
has "$kiln_deb" '^/usr/share/man/man1/kiln\.1\.gz$'
has "$kiln_deb" '^/usr/share/bash-completion/completions/kiln$'
lacks "$kiln_deb" '^/usr/(include|lib/.*libkiln\.(a|so)$)|/python3/'
if [ "$shared" = ON ]; then
  has "$kiln_deb" '^/usr/lib/.*libkiln\.so\.[0-9]+\.[0-9]+\.[0-9]+$'
  has "$kiln_deb" '^/usr/lib/.*libkiln\.so\.[0-9]+\.[0-9]+$'
  # (The lists are read whole before grep: with pipefail, `grep -q` exiting at the first match
  # can kill the writer with SIGPIPE and fail the pipeline at random.)
  ctrl=$(dpkg-deb --ctrl-tarfile "$kiln_deb" | tar -t)
  grep -q '^\./shlibs$' <<<"$ctrl" || fail "kiln has no shlibs file"
    has "$py_deb" '^/usr/lib/python3/dist-packages/kiln/__init__\.py$'
  lacks "$py_deb" '^/usr/(bin|include)/|\.so'
fi
has "$dev_deb" '^/usr/include/kiln/kiln\.h$'
has "$dev_deb" '^/usr/include/kiln/kiln\.hpp$'
has "$dev_deb" '^/usr/lib/.*libkiln\.a$'
has "$dev_deb" '^/usr/lib/.*cmake/kiln/kilnConfig\.cmake$'
has "$dev_deb" '^/usr/lib/.*pkgconfig/kiln\.pc$'
lacks "$dev_deb" '^/usr/bin/|libkiln\.so\.'
echo "deb_test: $(cd "$tmp/debs" && ls *.deb | tr '\n' ' ')"
echo "deb_test:   kiln Depends: $kiln_depends"
echo "deb_test:   libkiln-dev Depends: $(depends "$dev_deb"); python3-kiln Depends: $py_depends"

# Unpacked into a temporary root (dpkg -x: no maintainer scripts, no ldconfig).
root=$tmp/root
for deb in "${debs[@]}"; do dpkg -x "$deb" "$root"; done
usr=$root/usr
libdir=$(dirname "$(find "$usr/lib" -name 'libkiln.a' | head -1)")
got_version=$("$usr/bin/kiln" --version)
grep -qF "$version" <<< "$got_version" || fail "kiln --version says '$got_version', not $version"
# The packaged man page (gzip -9n) and completion are the packaged kiln's own.
man=$usr/share/man/man1/kiln.1.gz
gzip -l "$man" > /dev/null || fail "kiln.1.gz is not gzip"
[ "$(od -An -tu1 -j4 -N4 "$man" | tr -s ' ')" = " 0 0 0 0" ] || fail "kiln.1.gz has a time stamp (gzip -n)"
zcat "$man" | cmp -s - <("$usr/bin/kiln" help-man) || fail "kiln.1.gz is not the packaged kiln's page"
if command -v groff > /dev/null; then
  zcat "$man" | groff -man -Tutf8 -ww -z 2> "$tmp/groff.log"
  [ ! -s "$tmp/groff.log" ] || { cat "$tmp/groff.log"; fail "groff warns about kiln.1.gz"; }
fi
man_sections=$(zcat "$man" | grep -c '^\.SH "KILN ')
completion=$usr/share/bash-completion/completions/kiln
cmp -s "$completion" <("$usr/bin/kiln" completion bash) || fail "the completion is not the packaged kiln's"
got=$(bash -c 'source "$1"; COMP_WORDS=(kiln du); COMP_CWORD=1; _kiln; echo "${COMPREPLY[*]}"' _ "$completion")
[ "$got" = dump ] || fail "the packaged completion of 'kiln du' gives '$got'"
echo "deb_test: kiln.1.gz ($man_sections subcommand sections, groff clean) and the bash completion" \
  "('kiln du' -> dump) are the packaged kiln's"
cmake -S "$src/examples/embed" -B "$tmp/embed" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$usr" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF > "$tmp/configure.log" 2>&1 ||
  { cat "$tmp/configure.log"; fail "examples/embed does not configure against the packages"; }
cmake --build "$tmp/embed" > "$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail "examples/embed does not build"; }
# shellcheck disable=SC2046
PKG_CONFIG_PATH=$libdir/pkgconfig cc -std=c11 -Wall -Werror "$src/examples/embed/embed.c" \
  -o "$tmp/embed_pc" $(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --cflags --libs kiln) ||
  fail "embed.c does not build through pkg-config"
# With libkiln.so, find_package chose it: the C++ program needs it (from the root, below).
if [ "$shared" = ON ]; then
  needed=$(readelf -d "$tmp/embed/embed")
  grep -q 'NEEDED.*libkiln\.so' <<<"$needed" || fail "embed does not link libkiln.so"
fi

model=$models/kws_tdnn
if [ -z "$models" ] || [ ! -f "$model/model.onnx" ]; then
  echo "deb_test: packages checked and built against; run checks skipped: no shared models"
  exit 77
fi
input=$model/test_data_set_0/input_0.pb
name=$("$usr/bin/kiln" dump "$model/model.onnx" 2>/dev/null | awk '$2 == "Source" {print $3; exit}')
want=$("$usr/bin/kiln" run "$model/model.onnx" --input-bundle "$model/test_data_set_0" 2>/dev/null)
export LD_LIBRARY_PATH=$libdir
check() {
  local what=$1 got
  shift
  got=$("$@" 2>&1) || fail "$what failed: $got"
  "$python" "$src/tests/api/same_output.py" "$want" "$got" > "$tmp/same.log" ||
    { cat "$tmp/same.log"; fail "$what"; }
}
check "embed (C++)" "$tmp/embed/embed" "$model/model.onnx" "$name=$input"
check "embed_c (C)" "$tmp/embed/embed_c" "$model/model.onnx" "$input"
check "embed_c (pkg-config)" "$tmp/embed_pc" "$model/model.onnx" "$input"
unset LD_LIBRARY_PATH KILN_LIBRARY
[ "$shared" = ON ] && check "embed.py" env PYTHONPATH="$usr/lib/python3/dist-packages" PYTHONDONTWRITEBYTECODE=1 \
  "$python" "$src/examples/embed/embed.py" "$model/model.onnx" "$name=$input"
python_part=", embed.py"
[ "$shared" = ON ] || python_part=" (no libkiln.so: no python3-kiln)"
echo "deb_test: unpacked into a temporary root: kiln --version ($got_version), embed, embed_c," \
  "embed_c via pkg-config$python_part match kiln run: $want"
