#!/usr/bin/env bash
# Validates strict NNEF archives with the Khronos NNEF parser and runs them in its reference
# executor (NNEF-Tools, nnef-pyproject/nnef/cpp: infer.cpp), comparing the outputs with kiln's.
# NNEF-Tools is not a Debian package and is never part of kiln's build: give a checkout.
#
#   scripts/nnef-khronos-check.sh NNEF_TOOLS_DIR WORK_DIR [MODEL[:FACTS] ...]
#   scripts/nnef-khronos-check.sh NNEF_TOOLS_DIR WORK_DIR --cases DIR
#
# NNEF_TOOLS_DIR: a checkout of https://github.com/KhronosGroup/NNEF-Tools (its C++ parser and
# executor are built here with g++ into WORK_DIR/nnef-infer, once). Models default to the shared
# ones docs/nnef.md lists as strict; FACTS are -i options separated by '|'. For each model:
# `kiln convert --nnef-strict`, extract, load + shape inference + execution by the Khronos
# tool on test_data_set_0's inputs, and its outputs compared with `kiln run` on the archive
# (the Khronos tool prints the relative L2 difference; > 1e-4 fails).
set -euo pipefail
tools=$1
work=$2
shift 2
here=$(cd "$(dirname "$0")/.." && pwd)
kiln=${KILN:-$here/build/kiln}
models_dir=${KILN_SHARED_MODELS:-$here/../shared/models}
[ -d "$models_dir" ] || models_dir=$here/../../shared/models
mkdir -p "$work"
infer=$work/nnef-infer
src=$tools/nnef-pyproject/nnef/cpp
if [ ! -x "$infer" ]; then
  [ -f "$src/infer.cpp" ] || { echo "no $src/infer.cpp: not an NNEF-Tools checkout" >&2; exit 2; }
  g++ -O2 -std=c++17 -I"$src/include" "$src/infer.cpp" "$src/src/nnef.cpp" -o "$infer"
fi

# TensorProto (.pb, raw_data or float_data) or .npy -> NNEF .dat, in Python without numpy.
to_dat() {
  python3 - "$1" "$2" << 'EOF'
import struct, sys
src, dst = sys.argv[1], sys.argv[2]
data = open(src, 'rb').read()
CODES = {1: ('f', 0, 4), 6: ('i', 4, 4), 7: ('q', 4, 8), 9: ('?', 5, 1), 11: ('d', 0, 8)}
def varint(b, p):
    v = s = 0
    while True:
        c = b[p]; p += 1; v |= (c & 0x7f) << s; s += 7
        if not c & 0x80: return v, p
if src.endswith('.npy'):
    hl = struct.unpack('<H', data[8:10])[0]
    header = eval(data[10:10 + hl].decode('latin1'))
    dims = list(header['shape'])
    kind = {'<f4': 1, '<i4': 6, '<i8': 7, '|b1': 9, '<f8': 11}[header['descr']]
    raw = data[10 + hl:]
else:
    dims, kind, raw, floats, p = [], 1, None, [], 0
    while p < len(data):
        key, p = varint(data, p)
        f, w = key >> 3, key & 7
        if w == 0:
            v, p = varint(data, p)
            if f == 1: dims.append(v)
            elif f == 2: kind = v
        elif w == 2:
            n, p = varint(data, p)
            chunk = data[p:p + n]; p += n
            if f == 9: raw = chunk
            elif f == 1:
                q = 0
                while q < len(chunk):
                    v, q = varint(chunk, q); dims.append(v)
            elif f == 4: floats += struct.unpack('<%df' % (n // 4), chunk)
        elif w == 5: p += 4
        elif w == 1: p += 8
    if raw is None: raw = struct.pack('<%df' % len(floats), *floats)
fmt, item, size = CODES[kind]
bits = 1 if kind == 9 else size * 8
if kind == 9:
    bools = raw; packed = bytearray((len(bools) + 7) // 8)
    for i, b in enumerate(bools):
        if b: packed[i // 8] |= 0x80 >> (i % 8)
    raw = bytes(packed)
head = bytearray(128)
head[0:4] = bytes([0x4E, 0xEF, 1, 0])
struct.pack_into('<II', head, 4, len(raw), len(dims))
for i, d in enumerate(dims): struct.pack_into('<I', head, 12 + 4 * i, d)
struct.pack_into('<II', head, 44, bits, item)
open(dst, 'wb').write(bytes(head) + raw)
EOF
}

# Judges one Khronos run: the worst relative L2 difference of float outputs (<= 1e-4) and every
# other output equal. Prints the verdict; returns 1 on failure.
judge() {
  local name=$1 report=$2
  if grep -q "does not match" "$report"; then
    echo "$name: an output does not match: $(grep 'does not match' "$report" | head -1)"
    return 1
  fi
  local worst
  worst=$(awk '/diff =/ {print $NF}' "$report" | sort -g | tail -1)
  if [ -z "$worst" ]; then
    grep -q "matches" "$report" || { echo "$name: no comparison printed: $(cat "$report")"; return 1; }
    echo "$name: parsed, executed; outputs equal kiln's"
    return 0
  fi
  if python3 -c "import sys; sys.exit(0 if float('$worst') <= 1e-4 else 1)"; then
    echo "$name: parsed, executed; outputs vs kiln: relative L2 difference $worst"
  else
    echo "$name: outputs differ from kiln's: relative L2 difference $worst"
    return 1
  fi
}

# --cases DIR: the op-level archives tests/io/nnef_strict_test.cpp writes with
# KILN_NNEF_STRICT_DUMP=DIR (graph/, input_N.dat, kiln's output_N.dat per case).
if [ "${1:-}" = "--cases" ]; then
  failed=0
  for case in "$2"/*/; do
    name=$(basename "$case")
    ins=("$case"input_*.dat)
    outs=("$case"output_*.dat)
    if ! "$infer" "$case/graph" --input "${ins[@]}" --output "${outs[@]}" --compare \
      > "$case/khronos.txt" 2> "$case/khronos.err"; then
      echo "$name: FAILED in the Khronos tool: $(tail -3 "$case/khronos.err")"
      failed=1
      continue
    fi
    judge "$name" "$case/khronos.txt" || failed=1
  done
  exit $failed
fi

if [ $# -eq 0 ]; then
  set -- mobilenet_v2 squeezenet1_1 kws_tdnn lstm_kws \
    "silero_vad_v4:-i input:1,1536,f32|-i sr:i64=16000|-i h:2,1,64,f32|-i c:2,1,64,f32" \
    "silero_vad_v5:-i input:1,576,f32|-i sr:i64=16000|-i state:2,1,128,f32" \
    "wavenet_kws:-i input:1,40,200,f32" "tdnn_stream:-i input:1,40,200,f32" \
    "conv2d_stream:-i input:1,1,200,40,f32" "crnn_stream:-i input:1,200,40,f32"
fi
failed=0
for spec in "$@"; do
  name=${spec%%:*}
  facts=""
  [ "$name" != "$spec" ] && facts=${spec#*:}
  facts=${facts//|/ }
  dir=$models_dir/$name
  out=$work/$name
  rm -rf "$out" && mkdir -p "$out/graph" "$out/kiln"
  # shellcheck disable=SC2086
  "$kiln" convert "$dir/model.onnx" "$out/$name.nnef.tgz" --nnef-strict $facts > /dev/null
  tar xzf "$out/$name.nnef.tgz" -C "$out/graph"
  inputs=()
  for f in "$dir"/test_data_set_0/input_*.pb; do
    to_dat "$f" "$out/$(basename "${f%.pb}").dat"
    inputs+=("$out/$(basename "${f%.pb}").dat")
  done
  "$kiln" run "$out/$name.nnef.tgz" --input-bundle "$dir/test_data_set_0" --output-dir "$out/kiln" \
    --output-format npy
  outputs=()
  for f in "$out"/kiln/output_*.npy; do
    to_dat "$f" "${f%.npy}.dat"
    outputs+=("${f%.npy}.dat")
  done
  if ! "$infer" "$out/graph" --input "${inputs[@]}" --output "${outputs[@]}" --compare \
    > "$out/khronos.txt" 2> "$out/khronos.err"; then
    echo "$name: FAILED in the Khronos tool: $(tail -3 "$out/khronos.err")"
    failed=1
    continue
  fi
  judge "$name" "$out/khronos.txt" || failed=1
done
exit $failed
