#!/usr/bin/env python3
"""Every ONNX backend node model (Debian's libonnx-testdata) with its graph inputs redeclared as
empty tensors with huge dims: rank kept, one dim 0 (the first, or the last), the others 2^31.
An op that walks or multiplies the dims of such an input instead of returning an empty output
hangs or overflows; under the sanitizer build each model must replay in well under 10 s:

    python3 tests/fuzz/empty_dims_models.py /tmp/empty-dims
    build-fuzz/kiln_fuzz_replay --max-seconds 10 onnx /tmp/empty-dims/*.onnx

(scripts/nightly.sh runs it; docs/testing.md, finding 36, has the first audit's results.)
Usage: empty_dims_models.py OUT_DIR [NODE_DIR]"""
import glob
import os
import sys

import onnx

out = sys.argv[1]
node_dir = sys.argv[2] if len(sys.argv) > 2 else "/usr/share/libonnx-testdata/data/node"
os.makedirs(out, exist_ok=True)
count = 0
for path in sorted(glob.glob(f"{node_dir}/*/model.onnx")):
    case = path.split("/")[-2]
    model = onnx.load(path)
    initializers = {i.name for i in model.graph.initializer}
    for variant in ("first0", "last0"):
        m = onnx.ModelProto()
        m.CopyFrom(model)
        changed = False
        for value in m.graph.input:
            if value.name in initializers or not value.type.HasField("tensor_type"):
                continue
            dims = value.type.tensor_type.shape.dim
            if len(dims) < 2:
                continue
            for k, d in enumerate(dims):
                zero = k == 0 if variant == "first0" else k == len(dims) - 1
                d.Clear()
                d.dim_value = 0 if zero else 2**31
            changed = True
        if changed:
            onnx.save(m, f"{out}/{case}.{variant}.onnx")
            count += 1
print(f"empty_dims_models: {count} models in {out}")
