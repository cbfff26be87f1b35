#!/usr/bin/env bash
# The Python module as a user gets it: `cmake --install` of the kiln and python components (what
# the kiln and python3-kiln packages hold) into a temporary prefix, then, with only that prefix
# on PYTHONPATH (no KILN_LIBRARY, no build tree): the module and libkiln.so are loaded from the
# prefix, python/tests pass, and examples/embed/embed.py prints what `kiln run` prints.
# Usage: python_installed_test.sh BUILD_DIR SOURCE_DIR PYTHON3 [MODELS_DIR]
set -euo pipefail
build=$1 src=$2 python=$3
models=${KILN_SHARED_MODELS:-${4:-}}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

for component in kiln python; do
  cmake --install "$build" --prefix "$prefix" --component "$component" >> "$tmp/install.log"
done
pydir=$(dirname "$(find "$prefix" -path '*/kiln/__init__.py' | head -1)")
[ -f "$pydir/__init__.py" ] || { echo "python_installed_test: the kiln package was not installed"; exit 1; }
unset KILN_LIBRARY LD_LIBRARY_PATH
export PYTHONPATH=$(dirname "$pydir") PYTHONDONTWRITEBYTECODE=1
cd "$tmp"  # not the checkout: python/ must not be importable from the working directory

# The package and the library both come from the prefix.
where=$("$python" -c 'import kiln, kiln._lib as l; print(kiln.__file__); print(l.lib._name); print(kiln.version())')
module=$(sed -n 1p <<< "$where") library=$(sed -n 2p <<< "$where")
case "$module" in "$prefix"/*) ;; *) echo "python_installed_test: kiln imported from $module, not $prefix"; exit 1 ;; esac
case "$library" in "$prefix"/*) ;; *) echo "python_installed_test: libkiln loaded from $library, not $prefix"; exit 1 ;; esac
[ -e "$library" ] || { echo "python_installed_test: $library does not exist"; exit 1; }
echo "python_installed_test: kiln $(sed -n 3p <<< "$where") from $module, library $library"

"$python" -m pytest -q -p no:cacheprovider --rootdir "$tmp" "$src/python/tests"

model=$models/kws_tdnn
if [ -z "$models" ] || [ ! -f "$model/model.onnx" ]; then
  echo "python_installed_test: embed.py not run: no shared models (KILN_SHARED_MODELS)"
  exit 0
fi
want=$("$build/kiln" run "$model/model.onnx" --input-bundle "$model/test_data_set_0" 2>/dev/null)
name=$("$build/kiln" dump "$model/model.onnx" 2>/dev/null | awk '$2 == "Source" {print $3; exit}')
got=$("$python" "$src/examples/embed/embed.py" "$model/model.onnx" "$name=$model/test_data_set_0/input_0.pb")
echo "  kiln run: $want"
echo "  embed.py: $got"
"$python" "$src/tests/api/same_output.py" "$want" "$got"
# --labels: the top 3 classes of output 0, exactly as `kiln run --labels` prints them.
printf 'silence\nunknown\nyes\nno\nup\ndown\nleft\nright\non\noff\nstop\ngo\n' > "$tmp/labels.txt"
want_top=$("$build/kiln" run "$model/model.onnx" --input-bundle "$model/test_data_set_0" --labels "$tmp/labels.txt" 2>/dev/null)
got_top=$("$python" "$src/examples/embed/embed.py" "$model/model.onnx" "$name=$model/test_data_set_0/input_0.pb" --labels "$tmp/labels.txt")
[ "$got_top" = "$want_top" ] ||
  { printf 'python_installed_test: embed.py --labels differs\n%s\n---\n%s\n' "$want_top" "$got_top"; exit 1; }
echo "python_installed_test: embed.py from the prefix matches kiln run, with --labels too: $(tr '\n' ' ' <<< "$got_top")"
