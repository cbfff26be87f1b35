#!/usr/bin/env bash
# Builds the seed corpora of the fuzz harnesses (tests/fuzz, docs/testing.md) under OUT
# (default build-fuzz/corpus/<harness>/). Big seeds stay out of git: they come from the shared
# models, Debian's ONNX backend test data (python3-onnx's data folder, installed by
# scripts/setup.sh) and files this script writes; the small hand-written seeds and the committed
# regression inputs (tests/fuzz/seeds, tests/fuzz/regressions) are copied in too.
#
# Usage: scripts/fuzz-corpus.sh [OUT]
# Environment: KILN (a built kiln, for the NNEF seeds: default build/kiln, then build-fuzz/...),
#   KILN_SHARED_MODELS (default ../shared/models or ../../shared/models),
#   KILN_ONNX_BACKEND_DATA (default /usr/lib/python3/dist-packages/onnx/backend/test/data),
#   KILN_FUZZ_SEED_MAX_BYTES (largest model seed, default 65536).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=${1:-build-fuzz/corpus}
max=${KILN_FUZZ_SEED_MAX_BYTES:-65536}
backend=${KILN_ONNX_BACKEND_DATA:-/usr/lib/python3/dist-packages/onnx/backend/test/data}
models=${KILN_SHARED_MODELS:-}
if [ -z "$models" ]; then
  for d in ../shared/models ../../shared/models; do
    [ -d "$d" ] && models=$(cd "$d" && pwd) && break
  done
fi
kiln=${KILN:-}
if [ -z "$kiln" ]; then
  for k in build/kiln build-fuzz/kiln build-asan/kiln; do
    [ -x "$k" ] && kiln=$k && break
  done
fi
harnesses="onnx tf nnef nnef_dat nnef_tgz nnef_quant npy npz tensor_pb wav fact"
for h in $harnesses; do mkdir -p "$out/$h"; done
# Seed names: content hashes, so reruns do not duplicate.
add() {  # add HARNESS FILE
  local sum
  sum=$(sha1sum "$2" | cut -c1-16)
  cp "$2" "$out/$1/seed-$sum"
}
small() { [ "$(stat -c %s "$1")" -le "$max" ]; }

# Committed seeds and regressions.
for h in $harnesses; do
  for d in tests/fuzz/seeds/$h tests/fuzz/regressions/$h; do
    [ -d "$d" ] || continue
    find "$d" -type f | while read -r f; do add "$h" "$f"; done
  done
done

# ONNX: every small backend-suite model, the small shared models; TensorProto: their inputs.
if [ -d "$backend" ]; then
  find -L "$backend" -name model.onnx | sort | while read -r f; do
    if small "$f"; then add onnx "$f"; fi
  done
  find -L "$backend" -name 'input_*.pb' | sort | awk 'NR <= 2000' | while read -r f; do
    if small "$f"; then add tensor_pb "$f"; fi
  done
else
  echo "fuzz-corpus: no ONNX backend data at $backend (KILN_ONNX_BACKEND_DATA): fewer seeds" >&2
fi
if [ -n "$models" ]; then
  for f in "$models"/*/model.onnx; do
    if small "$f"; then add onnx "$f"; fi
  done
  for f in "$models"/*/test_data_set_0/input_*.pb; do
    if small "$f"; then add tensor_pb "$f"; fi
  done
  # The keyword spotters are 120 KB+: the smallest one only (slow to run: few execs each).
  [ -f "$models/tf-ml-kws/DS_CNN_S.pb" ] && add tf "$models/tf-ml-kws/DS_CNN_S.pb"
  [ -f "$models/tf-ml-kws/silence.wav" ] && add wav "$models/tf-ml-kws/silence.wav"
fi

# TensorFlow: small GraphDefs from text (protoc).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in tests/fuzz/corpus_src/tf_*.pbtxt; do
  protoc -I"$root" --encode=kiln.tfproto.GraphDef io/tf/proto/tf_graph.proto <"$f" \
    >"$tmp/$(basename "$f" .pbtxt).pb"
  add tf "$tmp/$(basename "$f" .pbtxt).pb"
done

# .npy / .npz of every dtype kiln reads, WAVs of several layouts (python3's standard library).
python3 - "$tmp" <<'PY'
import os, struct, sys, wave, zipfile
out = sys.argv[1]
types = [("<f4", "f", 4), ("<f8", "d", 8), ("<f2", "e", 2), ("|i1", "b", 1), ("<i2", "h", 2),
         ("<i4", "i", 4), ("<i8", "q", 8), ("|u1", "B", 1), ("<u2", "H", 2), ("<u4", "I", 4),
         ("<u8", "Q", 8), ("|b1", "?", 1)]
shapes = [(), (3,), (2, 3), (1, 2, 2), (0, 4)]
paths = []
for descr, code, size in types:
    for shape in shapes:
        n = 1
        for d in shape:
            n *= d
        dims = ",".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
        header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, dims)
        header += " " * ((64 - (11 + len(header)) % 64) % 64) + "\n"
        vals = [(i % 2 == 0) if code == "?" else (i % 5) for i in range(n)]
        data = struct.pack("<%d%s" % (n, code), *vals)
        name = os.path.join(out, "npy_%s_%s.npy" % (descr[1:], "x".join(map(str, shape)) or "s"))
        with open(name, "wb") as f:
            f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data)
        paths.append(name)
for i, group in enumerate([paths[0:3], paths[10:14], paths[30:35]]):
    for method in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        with zipfile.ZipFile(os.path.join(out, "npz_%d_%d.npz" % (i, method)), "w", method) as z:
            for p in group:
                z.write(p, os.path.basename(p))
# NNEF .dat: magic 4E EF 01 00, data length, rank, 8 extents, bits per item, item type.
def dat(name, shape, bits, item, payload, signed=0):
    ext = list(shape) + [0] * (8 - len(shape))
    header = struct.pack("<4BII8III", 0x4E, 0xEF, 1, 0, len(payload), len(shape), *ext, bits, item)
    header += struct.pack("<I", signed) + b"\0" * (128 - len(header) - 4)
    with open(os.path.join(out, name), "wb") as f:
        f.write(header + payload)
dat("dat_f32.dat", (2, 3), 32, 0, struct.pack("<6f", 1, 2, 3, 4, 5, 6))
dat("dat_u8.dat", (4,), 8, 1, bytes([0, 1, 2, 255]))
dat("dat_i32.dat", (2,), 32, 1, struct.pack("<2i", -1, 7), signed=1)
dat("dat_bool.dat", (10,), 1, 5, bytes([0b10110000, 0b01000000]))
dat("dat_q8.dat", (3,), 8, 2, bytes([0, 128, 255]))
dat("dat_f16.dat", (2, 2), 16, 0, struct.pack("<4e", 0.5, -1, 2, 65504))
for channels, rate, frames in [(1, 16000, 160), (2, 8000, 33), (1, 44100, 0), (3, 16000, 10)]:
    with wave.open(os.path.join(out, "wav_%d_%d_%d.wav" % (channels, rate, frames)), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(struct.pack("<%dh" % (channels * frames),
                                  *[(i * 997) % 65536 - 32768 for i in range(channels * frames)]))
PY
for f in "$tmp"/npy_*.npy; do add npy "$f"; done
for f in "$tmp"/npz_*.npz; do add npz "$f"; done
for f in "$tmp"/wav_*.wav; do add wav "$f"; done
for f in "$tmp"/dat_*.dat; do add nnef_dat "$f"; done

# NNEF: small backend models converted by kiln (graph.nnef, .dat files and the .tgz itself).
if [ -n "$kiln" ] && [ -d "$backend" ]; then
  n=0
  for d in "$backend"/node/test_{conv,add,matmul,relu,gemm,reshape,transpose,concat,slice,max_pool,softmax,lstm,gather,reduce_mean,unsqueeze,split,pad,resize,loop,if}*; do
    [ -f "$d/model.onnx" ] || continue
    small "$d/model.onnx" || continue
    conv=$tmp/nnef_$n
    if "$kiln" convert "$d/model.onnx" "$conv.nnef.tgz" >/dev/null 2>&1; then
      add nnef_tgz "$conv.nnef.tgz"
      mkdir -p "$conv" && tar -xzf "$conv.nnef.tgz" -C "$conv"
      [ -f "$conv/graph.nnef" ] && add nnef "$conv/graph.nnef"
      find "$conv" -name '*.dat' | head -3 | while read -r f; do if small "$f"; then add nnef_dat "$f"; fi; done
    fi
    n=$((n + 1))
  done
else
  echo "fuzz-corpus: no kiln binary (KILN) or no backend data: no converted NNEF seeds" >&2
fi
for h in $harnesses; do
  echo "fuzz-corpus: $h: $(find "$out/$h" -type f | wc -l) seeds"
done
