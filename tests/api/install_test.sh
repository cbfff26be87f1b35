#!/usr/bin/env bash
# cmake --install into a temporary prefix, then build examples/embed against that prefix only
# (find_package(kiln CONFIG) for the C++ and C programs, pkg-config for the C one) and check
# their outputs against `kiln run` from the same prefix on a shared model.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR [MODELS_DIR]; exit 77 (skipped) without models,
# after the build checks.
set -euo pipefail
build=$1 src=$2
models=${KILN_SHARED_MODELS:-${3:-}}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

cmake --install "$build" --prefix "$prefix" > "$tmp/install.log"
for f in bin/kiln include/kiln/kiln.h include/kiln/kiln.hpp include/kiln/error.h \
         include/kiln/export.h; do
  [ -e "$prefix/$f" ] || { echo "install_test: $f not installed"; exit 1; }
done
libdir=$(dirname "$(find "$prefix" -name libkiln.a | head -1)")
[ -f "$libdir/libkiln.a" ] && [ -f "$libdir/cmake/kiln/kilnConfig.cmake" ] &&
  [ -f "$libdir/pkgconfig/kiln.pc" ] || { echo "install_test: libkiln.a / kilnConfig / kiln.pc missing"; exit 1; }

# The C++ and C programs through find_package(kiln) from the prefix only.
cmake -S "$src/examples/embed" -B "$tmp/embed" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF > "$tmp/configure.log" ||
  { cat "$tmp/configure.log"; exit 1; }
cmake --build "$tmp/embed" > "$tmp/build.log" || { cat "$tmp/build.log"; exit 1; }

# The C one again through pkg-config.
export PKG_CONFIG_PATH=$libdir/pkgconfig
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror "$src/examples/embed/embed.c" -o "$tmp/embed_pc" \
  $(pkg-config --cflags --libs kiln) || { echo "install_test: pkg-config build failed"; exit 1; }
export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

model=$models/kws_tdnn
if [ -z "$models" ] || [ ! -f "$model/model.onnx" ]; then
  echo "install_test: installed and built; run checks skipped: no shared models (KILN_SHARED_MODELS)"
  exit 77
fi
input=$model/test_data_set_0/input_0.pb
name=$("$prefix/bin/kiln" dump "$model/model.onnx" 2>/dev/null | awk '$2 == "Source" {print $3; exit}')
want=$("$prefix/bin/kiln" run "$model/model.onnx" --input-bundle "$model/test_data_set_0" 2>/dev/null)
got=$("$tmp/embed/embed" "$model/model.onnx" "$name=$input" 2>/dev/null)
if [ "$got" != "$want" ]; then
  printf 'install_test: embed (C++) differs from kiln run\n  kiln run: %s\n  embed:    %s\n' "$want" "$got"
  exit 1
fi
for prog in "$tmp/embed/embed_c" "$tmp/embed_pc"; do
  out=$("$prog" "$model/model.onnx" "$input" 2>/dev/null)
  # Same name, shape and type as kiln run's line; values printed with %g: compare the first.
  case "$out" in
    "${want%% \[*}"*) ;;
    *) printf 'install_test: %s differs from kiln run\n  kiln run: %s\n  it:       %s\n' "$prog" "$want" "$out"; exit 1 ;;
  esac
  first_want=$(sed -E 's/.*\[([^,]*),.*/\1/' <<< "$want")
  first_got=$(sed -E 's/.*\[([^,]*),.*/\1/' <<< "$out")
  python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); sys.exit(0 if abs(a-b)<=1e-4*max(1,abs(a)) else 1)" "$first_want" "$first_got" ||
    { echo "install_test: $prog first value $first_got, kiln run $first_want"; exit 1; }
done
# --labels: the top 3 classes of output 0, exactly as `kiln run --labels` prints them.
printf 'silence\nunknown\nyes\nno\nup\ndown\nleft\nright\non\noff\nstop\ngo\n' > "$tmp/labels.txt"
want_top=$("$prefix/bin/kiln" run "$model/model.onnx" --input-bundle "$model/test_data_set_0" --labels "$tmp/labels.txt" 2>/dev/null)
for run in "$tmp/embed/embed $model/model.onnx $name=$input" "$tmp/embed/embed_c $model/model.onnx $input" \
           "$tmp/embed_pc $model/model.onnx $input"; do
  # shellcheck disable=SC2086
  top=$($run --labels "$tmp/labels.txt" 2>&1) || { echo "install_test: $run --labels failed: $top"; exit 1; }
  [ "$top" = "$want_top" ] ||
    { printf 'install_test: %s --labels differs from kiln run --labels\n%s\n---\n%s\n' "${run%% *}" "$want_top" "$top"; exit 1; }
done
echo "install_test: installed to a temporary prefix; embed (C++, find_package), embed_c (C, find_package and pkg-config) match kiln run: $want;"
echo "install_test: with --labels, all three print kiln run --labels' top 3: $(tr '\n' ' ' <<< "$want_top")"
