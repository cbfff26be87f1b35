#!/usr/bin/env bash
# Rebuilds the hand-written regression inputs of tests/fuzz/regressions/ from their text forms
# in src/ (protoc --encode for ONNX and TensorFlow protobufs; the .npy files by printf). The
# binaries are committed: ctest does not need protoc. Findings of the fuzzers are committed as
# they were found (crash-<sha1> files), not generated here.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
src=$here/src
onnx_proto=${ONNX_PROTO:-/usr/include/onnx/onnx.proto}
mkdir -p "$here/onnx" "$here/tf" "$here/npy" "$here/npz"
for f in "$src"/*.onnx.txt; do
  out=$here/onnx/$(basename "$f" .txt)
  protoc -I"$(dirname "$onnx_proto")" --encode=onnx.ModelProto "$(basename "$onnx_proto")" \
    <"$f" >"$out"
done
# The CLI's --timeout test model (tests/cli/limits_cli_test.cpp): a Loop of 2^62 iterations.
protoc -I"$(dirname "$onnx_proto")" --encode=onnx.ModelProto "$(basename "$onnx_proto")" \
  <"$root/tests/cli/data/loop_2p62_trips.onnx.txt" >"$root/tests/cli/data/loop_2p62_trips.onnx"
mkdir -p "$here/tensor_pb"
for f in "$src"/*.tensor.txt; do
  grep -v '^#' "$f" | protoc -I"$(dirname "$onnx_proto")" --encode=onnx.TensorProto \
    "$(basename "$onnx_proto")" >"$here/tensor_pb/$(basename "$f" .tensor.txt).pb"
done
for f in "$src"/*.pb.txt; do
  grep -v '^#' "$f" | protoc -I"$root" --encode=kiln.tfproto.GraphDef io/tf/proto/tf_graph.proto \
    >"$here/tf/$(basename "$f" .txt)"
done
# Defect 1: a valid float32 .npy ([2, 3], six floats) whose header has 28,000 spaces inside the
# shape tuple: numpy reads it; kiln's old std::regex parser overflowed the stack on it.
npy=$here/npy/defect1_spaces_in_shape.npy
python3 - "$npy" <<'PY'
import struct, sys
spaces = " " * 28000
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2," + spaces + "3), }"
total = 10 + len(header) + 1
header += " " * ((64 - total % 64) % 64) + "\n"
data = struct.pack("<6f", 1, 2, 3, 4, 5, 6)
with open(sys.argv[1], "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data)
PY
# The same array as the entry of a .npz (zip, stored).
python3 - "$npy" "$here/npz/defect1_spaces_in_shape.npz" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_STORED) as z:
    z.write(sys.argv[1], "x.npy")
PY
echo "regressions rebuilt under $here"
