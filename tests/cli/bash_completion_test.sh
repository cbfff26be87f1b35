#!/usr/bin/env bash
# The bash completion (`kiln completion bash`, or the build's file SCRIPT): sourced in bash,
# COMP_WORDS / COMP_CWORD set as bash sets them, _kiln called, COMPREPLY checked: subcommands,
# options of a subcommand, enum values, files for model paths, nothing after a number option.
# Usage: bash_completion_test.sh KILN [SCRIPT]
set -euo pipefail
export LC_ALL=C  # sort order
kiln=$1 script=${2:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "bash_completion_test: $*"
  exit 1
}
"$kiln" completion bash > "$tmp/kiln.bash"
if [ -n "$script" ]; then
  cmp -s "$script" "$tmp/kiln.bash" || fail "$script differs from 'kiln completion bash' (rebuild)"
fi
bash -n "$tmp/kiln.bash" || fail "the script does not parse"
mkdir "$tmp/work" && cd "$tmp/work"
touch model.onnx model.nnef.tgz other.txt
mkdir models

# complete WORDS...: COMPREPLY (sorted, one line) with the cursor at the end of the last word.
complete_words() {
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1));
           COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; _kiln;
           printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " " | sed "s/ *$//"' \
    _ "$tmp/kiln.bash" "$@"
}
cases=0
expect() {
  local want=$1 got
  shift
  got=$(complete_words "$@")
  [ "$got" = "$want" ] || fail "'$*': got '$got', want '$want'"
  cases=$((cases + 1))
}
expect_has() {
  local want=$1 got
  shift
  got=" $(complete_words "$@") "
  [[ $got == *" $want "* ]] || fail "'$*': '$want' not in '$got'"
  cases=$((cases + 1))
}

# every subcommand --help lists, and only those (help-man is hidden)
subs=$("$kiln" --help | awk '/^Subcommands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {on = 0}' |
  sort | tr '\n' ' ' | sed 's/ *$//')
expect "$subs" kiln ""
expect "dump" kiln du
expect "--profile" kiln dump --pro
expect "--threads" kiln bench model.onnx --thr
expect "--verbose --version" kiln --ver
expect "declutter" kiln dump --stage de
expect "declutter" kiln dump --stage = de
expect "avx2 avx512" kiln compare model.onnx --isa-b avx
expect "generic" kiln compare model.onnx --isa-a g
expect "npy pb" kiln run model.onnx --output-format ""
expect "bash" kiln completion ""
expect "model.nnef.tgz model.onnx models" kiln run mod
expect "model.nnef.tgz model.onnx models" kiln convert model.onnx mod
expect "model.onnx" kiln bench -v model.o
expect "" kiln run model.onnx --threads ""
expect "" kiln ops ""
expect_has "--input-bundle" kiln run model.onnx --input-b
expect_has "-i" kiln profile -
# an option's value is a file
expect "other.txt" kiln run model.onnx --input-bundle ot
echo "bash_completion_test: $cases cases pass (subcommands: $subs)"
